// The operators' console. Everything it shows comes from the service's JSON
// routes, called with the API key the operator typed (kept in this tab's
// sessionStorage, sent as Authorization: Bearer). Text from the service is
// only ever set as textContent, never parsed as HTML.
"use strict";

const KEY = "refactord.apiKey";
const $ = (id) => document.getElementById(id);
const state = { cursor: "", selected: "", follow: null, keyNeeded: false, workers: "" };

// A run's address is /console#/runs/{id}: the page opens the run its
// address names, and names the run it opens, so that an operator can send
// a colleague the link. The fragment never reaches the server (nor, with
// Referrer-Policy: no-referrer, anyone else); the key is never in it.
const RUN_HASH = "#/runs/";
// RUN_ID is the shape of the ids refactord gives its runs (12 random
// bytes in lower-case hex, pipeline and pool alike): an id from an
// address is used only when it has it, so that what a link carries can
// never become another path of the API (".." would).
const RUN_ID = /^[0-9a-f]{24}$/;

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function authHeaders(extra) {
  const h = Object.assign({}, extra);
  const key = sessionStorage.getItem(KEY);
  if (key) h.Authorization = "Bearer " + key;
  return h;
}

class Refused extends Error {}

// quiet ends a promise whose failure the page already shows (a refused key
// brings the key field back).
function quiet(e) {
  if (!(e instanceof Refused)) $("run-message").textContent = "Error: " + e.message;
}

// api calls a JSON route; a 401 asks for a key and throws Refused.
async function api(path, init) {
  init = init || {};
  const r = await fetch(path, Object.assign({}, init, {
    headers: authHeaders(Object.assign({ Accept: "application/json" }, init.headers)),
    cache: "no-store",
  }));
  if (r.status === 401) {
    askForKey(sessionStorage.getItem(KEY) ? "The key was refused." : "This service needs an API key.");
    throw new Refused("unauthorized");
  }
  const body = await r.json().catch(() => null);
  return { status: r.status, ok: r.ok, body };
}

function askForKey(message) {
  state.keyNeeded = true;
  $("key-form").hidden = false;
  $("key-state").hidden = true;
  $("key-message").textContent = message;
  for (const id of ["inflight", "run"]) clearRunViews(id);
  $("history").querySelector("tbody").replaceChildren();
}

function clearRunViews(id) {
  if (id === "run") {
    $("run").hidden = true;
    $("revert").hidden = true;
    $("run-message").textContent = "";
    for (const part of ["run-facts", "progress", "review", "equivalence", "rounds", "diff"]) $(part).replaceChildren();
  } else {
    $(id).replaceChildren();
  }
}

function keyAccepted() {
  $("key-form").hidden = true;
  $("key-state").hidden = !sessionStorage.getItem(KEY);
}

// --- the image and the service -------------------------------------------

async function refreshImage() {
  const dl = $("image");
  const [health, ready] = await Promise.all([
    fetch("/health", { cache: "no-store" }).then((r) => r.json()).catch(() => null),
    fetch("/ready", { cache: "no-store" }).then((r) => r.json()).catch(() => null),
  ]);
  const rows = [];
  if (!health) {
    rows.push(["Service", "does not answer"]);
  } else {
    const mcp = health.mcp || {};
    rows.push(["Service", (health.app_name || "refactord") + " " + (health.version || "")]);
    rows.push(["Image", mcp.up ? (mcp.answering ? "up, answering" : "up, not answering yet") : "down"]);
    if (mcp.in_flight) rows.push(["Image call", mcp.in_flight.tool + " for " + Math.round(mcp.in_flight.seconds || 0) + " s"]);
    if (mcp.last_error) rows.push(["Last image error", mcp.last_error]);
    rows.push(["Run slot", health.busy ? "busy" : "free"]);
  }
  if (ready) rows.push(["Ready", ready.ready ? "yes" : "no: " + (ready.reasons || []).join("; ")]);
  dl.replaceChildren();
  for (const [k, v] of rows) {
    dl.append(el("dt", k), el("dd", v, k === "Ready" && ready && !ready.ready ? "bad" : ""));
  }
}

async function refreshLinks() {
  const r = await fetch("/", { headers: { Accept: "application/json" }, cache: "no-store" }).then((x) => x.json()).catch(() => null);
  if (r && r.links && r.links.queue) {
    $("queue-link").href = r.links.queue;
    $("queue-link").hidden = false;
  }
  if (r && r.links && r.links.workers) {
    state.workers = r.links.workers;
    $("pool").hidden = false;
    if (!state.keyNeeded) refreshPool().catch(() => {});
  }
}

// --- a pool's queue and workers ---------------------------------------------

async function refreshPool() {
  if (!state.workers) return;
  const r = await api(state.workers);
  const tbody = $("workers").querySelector("tbody");
  if (!r.ok || !r.body) {
    $("pool-queue").textContent = "The pool's workers could not be read" + (r.body && r.body.detail ? ": " + r.body.detail : ".");
    tbody.replaceChildren();
    return;
  }
  const p = r.body;
  $("pool-queue").textContent = p.queued + " run(s) queued, " + p.live_workers + " live worker(s).";
  tbody.replaceChildren();
  for (const w of p.workers || []) {
    const run = el("td");
    if (w.running) {
      const b = el("button", w.running, "link");
      b.type = "button";
      b.addEventListener("click", () => openRun(w.running).catch(quiet));
      run.append(b);
    } else {
      run.textContent = "idle";
    }
    const st = w.stopping ? "stopping" : w.live ? "live" : "lost (no heartbeat)";
    const tr = el("tr");
    tr.append(el("td", w.id), el("td", w.image), el("td", st, w.live ? "" : "bad"), run,
      el("td", new Date(w.heartbeat_at).toLocaleTimeString()));
    tbody.append(tr);
  }
}

// --- runs in flight --------------------------------------------------------

async function refreshInflight() {
  const lists = await Promise.all(["queued", "running", "releasing"].map((o) =>
    api("/api/v1/refactorings?limit=20&outcome=" + o).then((r) => (r.ok ? r.body.runs : []))));
  const runs = lists.flat();
  const ul = $("inflight");
  ul.replaceChildren();
  $("inflight-empty").hidden = runs.length > 0;
  for (const run of runs) {
    const li = el("li");
    const b = el("button", methodName(run), "link");
    b.type = "button";
    b.addEventListener("click", () => openRun(run.id).catch(quiet));
    li.append(b, " ", el("span", run.status, "status " + run.status),
      " ", el("span", run.stage ? "stage " + run.stage : "not started"),
      run.worker ? el("span", " on " + run.worker) : "");
    ul.append(li);
  }
}

function methodName(run) {
  return run.class_name + (run.is_class_method ? " class" : "") + ">>#" + run.selector;
}

// --- the history -----------------------------------------------------------

function filterQuery() {
  const f = new FormData($("filters"));
  const q = new URLSearchParams();
  for (const [k, v] of f) if (String(v).trim()) q.set(k, String(v).trim());
  return q;
}

async function refreshHistory(append) {
  const q = filterQuery();
  q.set("limit", "25");
  if (append && state.cursor) q.set("cursor", state.cursor);
  const r = await api("/api/v1/refactorings?" + q);
  const tbody = $("history").querySelector("tbody");
  if (!r.ok) {
    $("history-empty").hidden = false;
    $("history-empty").textContent = (r.body && r.body.detail) || "The history could not be read.";
    return;
  }
  keyAccepted();
  if (!append) tbody.replaceChildren();
  for (const run of r.body.runs) tbody.append(historyRow(run));
  state.cursor = r.body.next_cursor || "";
  $("more").hidden = !state.cursor;
  $("history-empty").hidden = tbody.children.length > 0;
  $("history-empty").textContent = "No run matches.";
}

function historyRow(run) {
  const tr = el("tr");
  tr.dataset.id = run.id;
  const open = el("button", methodName(run), "link");
  open.type = "button";
  open.addEventListener("click", () => openRun(run.id).catch(quiet));
  const method = el("td");
  method.append(open);
  const kind = run.kind === "revert" ? "revert" : run.verify ? "verify" : run.dry_run ? "dry run" : "release";
  tr.append(el("td", new Date(run.created_at).toLocaleString()), method, el("td", kind),
    el("td", run.status, "status " + run.status), el("td", run.worker || ""), el("td", run.model_calls));
  return tr;
}

// --- the page's address -----------------------------------------------------

// addressed reads the page's address: { id } of the run it names, { id: "" }
// for the list, { bad } for an address of the console that names no run,
// null for a fragment that is no address of the console (an anchor).
function addressed() {
  const h = location.hash;
  if (h === "" || h === "#" || h === "#/" || h === "#/runs" || h === RUN_HASH) return { id: "" };
  if (!h.startsWith("#/")) return null;
  if (!h.startsWith(RUN_HASH)) return { bad: h.slice(1) };
  let id = h.slice(RUN_HASH.length);
  try {
    id = decodeURIComponent(id);
  } catch (e) {
    return { bad: id };
  }
  return RUN_ID.test(id) ? { id } : { bad: id };
}

// setAddress makes the address name the run id ("" for the list) without
// a new entry in the tab's history.
function setAddress(id) {
  const want = id ? RUN_HASH + id : "";
  if (location.hash === want) return;
  history.replaceState(history.state, "", location.pathname + location.search + want);
}

// route opens what the address names: on load, on a key accepted, and
// when the operator edits the address or pastes a link into this tab.
function route() {
  const a = addressed();
  if (a === null) return;
  if (a.bad !== undefined) {
    showNoRun(notARunID(a.bad));
  } else if (!a.id) {
    if (state.selected || !$("run").hidden || !$("no-run").hidden) closeRun();
  } else if (a.id !== state.selected || $("run").hidden) {
    openRun(a.id).catch(quiet);
  }
}

function notARunID(text) {
  const shown = text.length > 80 ? text.slice(0, 80) + "…" : text;
  return "“" + shown + "” is not a run id: a run id is 24 hexadecimal digits (0-9, a-f), as a run's Id shows it.";
}

// --- one run ---------------------------------------------------------------

function stopFollowing() {
  if (state.follow) state.follow.abort();
  state.follow = null;
}

// closeRun goes back to the list.
function closeRun() {
  stopFollowing();
  state.selected = "";
  clearRunViews("run");
  $("no-run").hidden = true;
  setAddress("");
}

// showNoRun says that the address names no run, in place of a run.
function showNoRun(message) {
  stopFollowing();
  state.selected = "";
  clearRunViews("run");
  $("no-run-text").textContent = message;
  $("no-run").hidden = false;
  $("no-run-h").focus();
}

async function openRun(id) {
  if (!RUN_ID.test(id)) {
    showNoRun(notARunID(String(id)));
    return;
  }
  state.selected = id;
  setAddress(id);
  $("no-run").hidden = true;
  const r = await api("/api/v1/refactorings/" + encodeURIComponent(id));
  if (state.selected !== id) return; // another run was opened, or this one closed, meanwhile
  if (r.status === 404) {
    showNoRun("No run has the id " + id + " in this service's history.");
    return;
  }
  if (!r.ok) {
    stopFollowing();
    clearRunViews("run");
    $("run-h").textContent = "Run " + id;
    $("run").hidden = false;
    $("run-message").textContent = (r.body && r.body.detail) || "The run could not be read.";
    return;
  }
  showRun(r.body);
  $("progress").replaceChildren();
  $("rounds").replaceChildren(el("p", "Loading rounds…"));
  $("run").hidden = false;
  $("run-h").focus();
  followRun(id);
}

function showRun(run) {
  $("run-h").textContent = methodName(run);
  const facts = [
    ["Id", run.id], ["Status", run.status], ["Stage", run.stage || "—"],
    ["Kind", run.kind === "revert" ? "revert of " + run.revert_of : run.verify ? "verify" : run.dry_run ? "dry run" : "release"],
    ["Worker", run.worker || "—"], ["Started", run.created_at ? new Date(run.created_at).toLocaleString() : "—"],
    ["Iterations", run.iterations], ["Model calls", run.model_calls],
    ["Tokens", run.input_tokens + " in, " + run.output_tokens + " out"],
  ];
  if (run.error_code) facts.push(["Error", run.error_code + ": " + run.error_message]);
  if (run.notes) facts.push(["Notes", run.notes]);
  const dl = $("run-facts");
  dl.replaceChildren();
  for (const [k, v] of facts) dl.append(el("dt", k), el("dd", v));
  const revert = $("revert");
  revert.hidden = !(run.kind !== "revert" && run.status === "released");
  revert.dataset.id = run.id;
  revert.dataset.name = methodName(run);
  $("run-message").textContent = "";
  showReview(run.review);
  showEquivalence(run.equivalence, ["queued", "running", "releasing"].includes(run.status));
  showDiff(run);
}

function showReview(review) {
  const box = $("review");
  box.replaceChildren();
  if (!review || typeof review !== "object") {
    box.append(el("p", "No review recorded."));
    return;
  }
  box.append(el("p", (review.severity || "") + " — " + (review.summary || "")));
  const ul = el("ul");
  for (const i of review.issues || []) ul.append(el("li", i.principle + ": " + i.problem + " → " + i.suggestion));
  if (ul.children.length) box.append(ul);
}

// OUTCOMES are the words for a comparison's outcome (Equivalence.outcome).
const OUTCOMES = {
  same: "same — on every input compared, the candidate did what the original did",
  changed: "changed — on an input the candidate did not do what the original did",
  not_checked: "not checked — no comparison was made (never taken for same)",
};

// showEquivalence shows the run's last comparison of the original and a
// candidate run side by side on the same inputs: its outcome, its counts,
// and for a changed one the input that shows it. A row without one (older
// rows, runs that ended before a comparison) is "not compared", a run in
// flight "not compared yet". Every text is the image's or the model's, so
// it is set as text only.
function showEquivalence(eq, inFlight) {
  const box = $("equivalence");
  box.replaceChildren();
  if (!eq || typeof eq !== "object") {
    box.append(el("p", inFlight ? "Not compared yet: the comparison shows when the run ends."
      : "Not compared: the row records no comparison (the run ended before one, or was recorded before comparisons were kept)."));
    return;
  }
  const count = (n) => (Number.isFinite(n) ? n : 0);
  const outcome = String(eq.outcome || "");
  if (outcome !== "not_checked" && count(eq.activations) === 0) {
    const warn = el("p", null, "warning");
    warn.setAttribute("role", "note");
    warn.append(el("strong", "No test calls this method."),
      " The inputs compared were generated from its literals and arguments, none recorded from a test: the tests around a release do not exercise it.");
    box.append(warn);
  }
  const facts = [["Outcome", OUTCOMES[outcome] || outcome, outcome === "changed" ? "bad" : outcome === "same" ? "ok" : ""]];
  if (eq.reason) facts.push(["Reason", eq.reason, ""]);
  facts.push(
    ["Reached by the tests", count(eq.activations) + " time(s)", ""],
    ["Compared", count(eq.compared), ""],
    ["Recorded", count(eq.recorded), ""],
    ["Generated", count(eq.generated), ""],
    ["Unstable", count(eq.unstable), ""],
  );
  const dl = el("dl", null, "facts");
  for (const [k, v, cls] of facts) dl.append(el("dt", k), el("dd", v, cls));
  box.append(dl);
  const w = eq.witness;
  if (w && typeof w === "object") {
    box.append(el("h4", "Witness: the input on which they differ"),
      witnessView([["Input", w.input], ["Original", w.original], ["Candidate", w.candidate]], w.aspect));
  }
}

// witnessView lists an input and what each side did on it, each text in a
// box that wraps it (long print strings scroll inside their box, whole).
function witnessView(parts, aspect) {
  const dl = el("dl", null, "facts witness");
  for (const [k, v] of parts) {
    const pre = el("pre", v === undefined || v === null ? "" : v, "witness-text");
    pre.tabIndex = 0;
    pre.setAttribute("aria-label", k);
    const dd = el("dd");
    dd.append(pre);
    dl.append(el("dt", k), dd);
  }
  if (aspect) dl.append(el("dt", "Aspect"), el("dd", aspect));
  return dl;
}

// showDiff shows the method's change, then each helper method as added
// (or, for a revert, as removed).
function showDiff(run) {
  const box = $("diff");
  box.replaceChildren();
  if (!run.final_source) {
    box.append(el("p", "No change recorded."));
    return;
  }
  box.append(el("h4", methodName(run)), diffView(run.original_source || "", run.final_source));
  const removed = run.kind === "revert";
  for (const h of run.helpers || []) {
    box.append(el("h4", (removed ? "helper removed: #" : "helper added: #") + h.selector + " (" + (h.protocol || "private") + ")"),
      removed ? diffView(h.source, "") : diffView("", h.source));
  }
}

// diffView is a line diff (longest common subsequence) as a table.
function diffView(a, b) {
  const x = a ? a.split("\n") : [], y = b ? b.split("\n") : [];
  const pre = el("pre", null, "diff");
  pre.setAttribute("role", "region");
  pre.setAttribute("aria-label", "diff");
  pre.tabIndex = 0;
  if (x.length * y.length > 4000000) {
    pre.append(el("span", "(too long to compare line by line)"));
    for (const l of x) pre.append(el("del", "- " + l));
    for (const l of y) pre.append(el("ins", "+ " + l));
    return pre;
  }
  const n = x.length, m = y.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) { pre.append(el("span", "  " + x[i])); i++; j++; }
    else if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) { pre.append(el("ins", "+ " + y[j])); j++; }
    else { pre.append(el("del", "- " + x[i])); i++; }
  }
  return pre;
}

// --- following a run's events ---------------------------------------------

// followRun reads GET …/events (Server-Sent Events, read with fetch so
// that the key goes in a header): the run's events so far and as they
// come, then its result.
async function followRun(id) {
  if (state.follow) state.follow.abort();
  const ctl = new AbortController();
  state.follow = ctl;
  const rounds = new Map();
  try {
    const r = await fetch("/api/v1/refactorings/" + encodeURIComponent(id) + "/events", {
      headers: authHeaders({ Accept: "text/event-stream" }), signal: ctl.signal, cache: "no-store",
    });
    if (r.status === 401) { askForKey("The key was refused."); return; }
    if (!r.ok || !r.body) { $("rounds").replaceChildren(el("p", "The run's events could not be read.")); return; }
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
      let cut;
      while ((cut = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        let type = "message", data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("event: ")) type = line.slice(7);
          else if (line.startsWith("data: ")) data += line.slice(6);
        }
        if (data && state.selected === id) onEvent(id, type, JSON.parse(data), rounds);
      }
    }
  } catch (e) {
    if (e.name !== "AbortError") $("run-message").textContent = "Following the run stopped: " + e.message;
  }
}

function progress(text) {
  $("progress").append(el("li", text));
}

function onEvent(id, type, d, rounds) {
  switch (type) {
    case "accepted": $("rounds").replaceChildren(); break;
    case "queued": progress("queued, position " + d.position); break;
    case "stage":
      progress("stage " + d.name + " " + d.status + (d.duration_ms ? " (" + d.duration_ms + " ms)" : ""));
      if (d.status === "started") setFact("Stage", d.name);
      break;
    case "model_call": progress(d.role + ": " + d.calls + " model call(s), " + d.input_tokens + "+" + d.output_tokens + " tokens"); break;
    case "candidate": roundOf(rounds, d.iteration).code = d; drawRounds(rounds); break;
    case "check": roundOf(rounds, d.iteration).errors = d.errors || []; drawRounds(rounds); break;
    case "verdict": roundOf(rounds, d.iteration).verdict = d; drawRounds(rounds); progress("verdict " + d.verdict); break;
    case "release": progress("release " + d.status); break;
    case "result":
      progress("ended: " + (d.outcome || "done"));
      setRounds(rounds, d.rounds);
      drawRounds(rounds);
      reloadRun(id).catch(quiet);
      break;
    case "error":
      progress("ended: " + (d.code || "error") + " — " + (d.detail || ""));
      reloadRun(id).catch(quiet);
      break;
    case "run":
      // A run this instance does not hold: its row has its rounds once it has ended.
      if (Array.isArray(d.rounds) && d.rounds.length) {
        setRounds(rounds, d.rounds);
        drawRounds(rounds);
      } else {
        $("rounds").replaceChildren(el("p", ["queued", "running", "releasing"].includes(d.status)
          ? "This run is on another worker: its rounds show when it ends."
          : "No round is recorded for this run (it ended before one, or was recorded before rounds were kept); the row records " +
            d.iterations + " iteration(s) and the last verdict."));
      }
      if (["queued", "running", "releasing"].includes(d.status)) setTimeout(() => state.selected === id && openRun(id).catch(quiet), 2000);
      break;
  }
}

function setFact(name, value) {
  for (const dt of $("run-facts").querySelectorAll("dt")) if (dt.textContent === name) dt.nextElementSibling.textContent = value;
}

// setRounds replaces what rounds holds with a list of rounds as the
// result and the row have them.
function setRounds(rounds, list) {
  rounds.clear();
  for (const r of list || []) {
    rounds.set(r.iteration, { code: { code: r.code, helpers: r.helpers }, errors: r.check_errors || [],
      verdict: r.verdict ? { verdict: r.verdict.verdict, feedback: r.verdict.feedback } : null });
  }
}

function roundOf(rounds, i) {
  if (!rounds.has(i)) rounds.set(i, { code: null, errors: [], verdict: null });
  return rounds.get(i);
}

function drawRounds(rounds) {
  const box = $("rounds");
  box.replaceChildren();
  for (const [i, r] of [...rounds.entries()].sort((a, b) => a[0] - b[0])) {
    const d = el("details");
    d.open = true;
    const verdict = r.verdict ? r.verdict.verdict : r.errors.length ? "refused by the checks" : "…";
    d.append(el("summary", "Round " + i + ": " + verdict));
    if (r.code) {
      d.append(el("pre", r.code.code, "code"));
      for (const h of r.code.helpers || []) d.append(el("pre", h.source, "code helper"));
    }
    if (r.errors.length) {
      const ul = el("ul");
      for (const e of r.errors) {
        const li = el("li", e.check + (e.helper ? " in #" + e.helper : "") + ": " + e.message);
        if (e.check === "behaviour_changed" && (e.input || e.original || e.candidate)) {
          li.append(witnessView([["Input", e.input], ["Original", e.original], ["Candidate", e.candidate]]));
        }
        ul.append(li);
      }
      d.append(ul);
    }
    if (r.verdict && r.verdict.feedback) d.append(el("p", r.verdict.feedback));
    box.append(d);
  }
}

async function reloadRun(id) {
  const r = await api("/api/v1/refactorings/" + encodeURIComponent(id));
  if (r.ok && state.selected === id) showRun(r.body);
  await Promise.all([refreshHistory(false), refreshInflight()]);
}

// --- revert, with a confirmation ------------------------------------------

function askRevert() {
  const b = $("revert");
  $("confirm-text").textContent = "The image gets back the original of " + b.dataset.name +
    " (and loses the run's helper methods). The revert is recorded as a run of its own.";
  $("confirm-revert").showModal();
}

async function doRevert() {
  const id = $("revert").dataset.id;
  $("confirm-revert").close();
  $("revert").disabled = true;
  $("run-message").textContent = "Reverting…";
  try {
    const r = await api("/api/v1/refactorings/" + encodeURIComponent(id) + "/revert", { method: "POST" });
    $("run-message").textContent = r.ok ? "Reverted: the image holds the original again (revert run " + r.body.id + ")."
      : "Not reverted: " + ((r.body && (r.body.detail || r.body.code)) || r.status);
    await reloadRun(id);
    $("run-message").textContent = r.ok ? "Reverted: the image holds the original again (revert run " + r.body.id + ")."
      : "Not reverted: " + ((r.body && (r.body.detail || r.body.code)) || r.status);
  } finally {
    $("revert").disabled = false;
  }
}

// --- start -----------------------------------------------------------------

async function refreshAll() {
  refreshImage().catch(() => {});
  if (state.keyNeeded && !sessionStorage.getItem(KEY)) return;
  try {
    await refreshHistory(false);
    await refreshInflight();
    await refreshPool();
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("key-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    sessionStorage.setItem(KEY, $("key").value.trim());
    $("key").value = "";
    state.keyNeeded = false;
    refreshAll().catch(quiet).then(route);
  });
  $("forget-key").addEventListener("click", () => {
    sessionStorage.removeItem(KEY);
    location.reload();
  });
  $("filters").addEventListener("submit", (ev) => {
    ev.preventDefault();
    refreshHistory(false).catch(quiet);
  });
  $("more").addEventListener("click", () => refreshHistory(true).catch(quiet));
  $("close-run").addEventListener("click", closeRun);
  $("no-run-close").addEventListener("click", closeRun);
  window.addEventListener("hashchange", route);
  $("revert").addEventListener("click", askRevert);
  $("confirm-no").addEventListener("click", () => $("confirm-revert").close());
  $("confirm-yes").addEventListener("click", () => doRevert().catch(quiet));
  refreshLinks().catch(() => {});
  refreshAll().catch(quiet);
  route();
  setInterval(() => {
    refreshImage().catch(() => {});
    if (!state.keyNeeded) refreshInflight().catch(() => {});
    if (!state.keyNeeded) refreshPool().catch(() => {});
  }, 3000);
});
