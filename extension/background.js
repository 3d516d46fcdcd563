// The only background work: a "!" on the toolbar button until a server is set, so a fresh
// install says where to start (the popup then points to the options page).
const ext = globalThis.browser ?? globalThis.chrome;

async function showSetupState() {
  const { server } = await ext.storage.local.get("server");
  await ext.action.setBadgeText({ text: server ? "" : "!" });
  await ext.action.setTitle({
    title: server ? "sleuth: research and cite this page" : "sleuth: set the server in Options",
  });
}

ext.runtime.onInstalled.addListener(showSetupState);
ext.runtime.onStartup.addListener(showSetupState);
ext.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && "server" in changes) showSetupState();
});
