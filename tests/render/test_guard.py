"""Every request the rendered page makes passes the SSRF guard; refused ones never connect."""

from __future__ import annotations

import pytest

from loopback import Site
from sleuth.errors import BlockedError
from sleuth.net import Guard
from sleuth.render import Renderer

from .conftest import EventLog, Tripwire, site_settings

pytestmark = pytest.mark.chromium

METADATA = "http://169.254.169.254/latest/meta-data/"


def probing_page(internal: str) -> str:
    """A page that tries every way it has to reach ``internal`` and the cloud metadata service."""
    return f"""<!doctype html><html><head><title>probe</title></head><body>
<article><p>An ordinary article with ordinary text.</p></article>
<img src="{internal}/pixel.png">
<iframe src="{internal}/frame"></iframe>
<p id="out">pending</p>
<script>
(async () => {{
  const seen = [];
  for (const target of ["{internal}/steal", "{METADATA}"]) {{
    try {{ await fetch(target); seen.push("reached"); }} catch (e) {{ seen.push("refused"); }}
  }}
  seen.push(await new Promise(done => {{
    const socket = new WebSocket("{internal.replace("http:", "ws:")}/socket");
    socket.onopen = () => done("ws-open");
    socket.onclose = () => done("ws-closed");
  }}));
  seen.push("rtc-" + typeof RTCPeerConnection);
  document.getElementById("out").textContent = "probes:" + seen.join(",");
}})();
</script></body></html>"""


async def test_page_cannot_reach_internal_addresses(
    site: Site, tripwire: Tripwire, renderer: Renderer, events: EventLog
) -> None:
    internal = tripwire.origin
    url = site.add("/probe", probing_page(internal))
    rendered = await renderer.render(url)

    assert "An ordinary article" in rendered.html
    assert "probes:refused,refused,ws-closed,rtc-undefined" in rendered.html
    assert tripwire.connections == 0
    for refused in (
        f"{internal}/steal",
        METADATA,
        f"{internal}/frame",
        f"{internal.replace('http:', 'ws:')}/socket",
    ):
        assert refused in rendered.blocked_requests
    # The image was skipped before the guard was even asked.
    assert f"{internal}/pixel.png" not in rendered.blocked_requests
    logged = [fields["url"] for name, fields in events.records if name == "render_blocked"]
    assert sorted(logged) == sorted(rendered.blocked_requests)


def test_metadata_address_is_refused_by_the_rules_alone(site: Site) -> None:
    """No allowlist entry can open it, and the refusal needs no lookup or connection."""
    guard = Guard(site_settings(site).net)
    with pytest.raises(BlockedError):
        guard.check_url(METADATA)


async def test_redirect_to_an_internal_port_is_refused(
    site: Site, tripwire: Tripwire, renderer: Renderer
) -> None:
    target = f"{tripwire.origin}/landing"
    site.add("/go", "", status=302, headers={"Location": target})
    with pytest.raises(BlockedError) as caught:
        await renderer.render(site.origin + "/go")
    assert caught.value.url == target
    assert tripwire.connections == 0


async def test_subresource_redirect_to_an_internal_port_is_refused(
    site: Site, tripwire: Tripwire, renderer: Renderer
) -> None:
    site.add("/hop", "", status=302, headers={"Location": f"{tripwire.origin}/steal"})
    url = site.add(
        "/page",
        "<p id='out'>pending</p><script>fetch('/hop').then(() => 'hop:reached',"
        " () => 'hop:refused').then(s => { document.getElementById('out').textContent = s; });"
        "</script>",
    )
    rendered = await renderer.render(url)
    assert "hop:refused" in rendered.html
    assert f"{tripwire.origin}/steal" in rendered.blocked_requests
    assert tripwire.connections == 0
