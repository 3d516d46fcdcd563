// The /docs page: lists every operation of /openapi.json with its request body's schema.
fetch("openapi.json").then(r => r.json()).then(spec => {
  const root = document.getElementById("ops");
  root.textContent = "";
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const h = document.createElement("h2");
      const m = document.createElement("span");
      m.className = "m"; m.textContent = method.toUpperCase();
      h.append(m, " ", path);
      const p = document.createElement("p");
      p.textContent = (op.summary || "") + (op.description ? " " + op.description : "");
      root.append(h, p);
      const body = op.requestBody && op.requestBody.content["application/json"].schema;
      if (body && body.$ref) {
        const name = body.$ref.split("/").pop();
        const pre = document.createElement("pre");
        pre.textContent = JSON.stringify(spec.components.schemas[name], null, 2);
        root.append(pre);
      }
    }
  }
});
