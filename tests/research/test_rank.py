"""Passage ranking and the selection of findings."""

from __future__ import annotations

from itertools import pairwise

from sleuth.digest.rank import MAX_CANDIDATES, build_query, rank_passages, select

TIMEOUTS = (
    "Welcome to the documentation of the example client library for Python.\n"
    "The default timeout is five seconds; the connect timeout and the read timeout can be "
    "set separately on the client.\n"
    "Pools keep at most ten connections alive for reuse by later requests.\n"
)
HISTORY = (
    "The library was first released in 2019 and has grown a large community since then.\n"
    "Its logo is a small blue fox, drawn by one of the original authors.\n"
)
MIRROR = (
    "Copied without credit: the default timeout is five seconds; the connect timeout and the "
    "read timeout can be set separately on the client.\n"
)


def test_query_weights_focus_above_question() -> None:
    query = build_query("client timeout", focus="read timeout")
    assert query.weights["client"] == 1.0
    assert query.weights["timeout"] == 2.5
    assert query.weights["read"] == 1.5
    assert ("client", "timeout") in query.pairs
    assert ("read", "timeout") in query.pairs


def test_the_relevant_passage_ranks_first() -> None:
    ranked = rank_passages([HISTORY, TIMEOUTS], [1.0, 1.0], build_query("default timeout"))
    best = ranked[0]
    assert best.page == 1
    assert TIMEOUTS[best.start : best.end].startswith("The default timeout")
    assert all(s.score > 0 for s in ranked)
    assert all(a.score >= b.score for a, b in pairwise(ranked))


def test_passages_without_query_terms_are_not_ranked() -> None:
    ranked = rank_passages([HISTORY], [1.0], build_query("timeout"))
    assert ranked == []


def test_focus_changes_the_winner() -> None:
    text = (
        "Timeouts for the client are five seconds unless configured otherwise by the caller.\n"
        "Connection pool limits for the client default to ten keep-alive connections at most.\n"
    )
    by_timeout = rank_passages([text], [1.0], build_query("client settings", focus="timeouts"))
    by_pool = rank_passages([text], [1.0], build_query("client settings", focus="pool limits"))
    assert text[by_timeout[0].start :].startswith("Timeouts")
    assert text[by_pool[0].start :].startswith("Connection pool")


def test_source_prior_breaks_ties_between_pages() -> None:
    ranked = rank_passages([TIMEOUTS, TIMEOUTS], [1.0, 1.5], build_query("default timeout"))
    assert ranked[0].page == 1


def test_adjacent_query_pairs_earn_a_bonus() -> None:
    text = (
        "The read timeout applies when the server stops sending data halfway through.\n"
        "Timeout errors are raised when reading from a server that stalls for too long.\n"
    )
    ranked = rank_passages([text], [1.0], build_query("read timeout"))
    assert text[ranked[0].start :].startswith("The read timeout")


def test_select_folds_near_duplicates_into_one_bullet_citing_both_pages() -> None:
    texts = [TIMEOUTS, MIRROR]
    query = build_query("default timeout")
    ranked = rank_passages(texts, [1.0, 1.0], query)
    findings = select(ranked, texts, query, max_findings=8, max_chars=300)
    timeout_findings = [
        f for f in findings if "default timeout" in texts[f.pages[0]][f.start : f.end]
    ]
    assert len(timeout_findings) == 1
    assert sorted(timeout_findings[0].pages) == [0, 1]


def test_select_respects_caps_and_spreads_over_pages() -> None:
    page = "\n".join(
        f"Timeout fact number {i} says the timeout of stage {i} is {i} seconds long today."
        for i in range(10)
    )
    other = "A second site also explains that the timeout of a stage is a number of seconds."
    texts = [page, other]
    query = build_query("stage timeout seconds")
    ranked = rank_passages(texts, [1.0, 1.0], query)
    findings = select(ranked, texts, query, max_findings=3, max_chars=60)
    assert len(findings) == 3
    assert all(f.end - f.start <= 60 for f in findings)
    assert {f.pages[0] for f in findings} == {0, 1}


def test_select_drops_weak_matches_far_below_the_best() -> None:
    strong = "Timeout timeout: the default timeout is five seconds, and the timeout is global."
    weak = (
        "Unrelated filler text that mentions timeout once among many other words"
        " about gardens, rivers, mountains, valleys, forests and the sea."
    )
    texts = [strong + "\n" + weak]
    query = build_query("default timeout")
    ranked = rank_passages(texts, [1.0], query)
    assert len(ranked) == 2
    assert ranked[1].score < 0.2 * ranked[0].score
    findings = select(ranked, texts, query, max_findings=8, max_chars=300)
    assert len(findings) == 1


def test_select_of_nothing_is_nothing() -> None:
    assert select([], [], build_query("x"), max_findings=3, max_chars=100) == []


def test_a_common_word_on_a_huge_page_does_not_drown_the_rare_one() -> None:
    filler = [
        f"Line {i} of the python manual mentions python and nothing else." for i in range(3000)
    ]
    filler[2500] = "The asyncio timeout context manager cancels python tasks that run too long."
    texts = ["\n".join(filler)]
    query = build_query("python asyncio timeout")
    ranked = rank_passages(texts, [1.0], query)
    assert len(ranked) == MAX_CANDIDATES
    assert texts[0][ranked[0].start : ranked[0].end] == filler[2500]


def test_only_lines_with_query_words_are_scored() -> None:
    text = "\n".join(
        ["An unrelated paragraph about gardens and rivers and the sea."] * 50
        + ["The timeout is five seconds by default for each request made."]
    )
    ranked = rank_passages([text], [1.0], build_query("timeout"))
    assert [(text[r.start : r.end]) for r in ranked] == [text.splitlines()[-1]]
