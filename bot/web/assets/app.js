// fairybot's game page: live updates (server-sent events) and a replay in place. The page
// works without this script: every control is a link to ?ply=N.
"use strict";
(function () {
  const game = document.getElementById("game");
  if (!game) return;
  const id = game.dataset.game;
  let last = Number(game.dataset.last);
  let ply = Number(game.dataset.ply);
  // The position asked for last (keys pressed quickly step from it, not from the one shown).
  let want = ply;
  // Following the game: at the last position, each new move is shown as it comes.
  let following = ply === last;
  const params = new URLSearchParams(location.search);
  const theme = params.get("theme") || "";
  const themeQuery = theme ? "&theme=" + encodeURIComponent(theme) : "";

  function markMoves() {
    for (const a of document.querySelectorAll("#moves a")) {
      if (Number(a.dataset.ply) === ply) a.setAttribute("aria-current", "step");
      else a.removeAttribute("aria-current");
    }
    const set = (key, to) => {
      const a = document.getElementById(key);
      if (a) { a.dataset.ply = to; a.href = "?ply=" + to + themeQuery; }
    };
    set("first", 0); set("prev", Math.max(0, ply - 1)); set("next", Math.min(last, ply + 1)); set("last", last);
  }

  async function show(n) {
    n = Math.max(0, Math.min(last, n));
    want = n;
    if (n === ply && document.getElementById("board")) return;
    const res = await fetch("/game/" + id + "/board.svg?ply=" + n + themeQuery);
    if (!res.ok || want !== n) return;
    const svg = await res.text();
    if (want !== n) return;
    const fig = document.getElementById("board");
    if (!fig) return;
    const old = fig.querySelector("svg");
    const tmp = document.createElement("div");
    tmp.innerHTML = svg;
    const fresh = tmp.querySelector("svg");
    if (old && fresh) old.replaceWith(fresh);
    const move = document.querySelector('#moves a[data-ply="' + n + '"]');
    const text = n === 0 ? "The start position." : "Position after move " + n + (move ? " (" + move.textContent + ")" : "") + ".";
    fig.setAttribute("aria-label", text);
    const cap = fig.querySelector("figcaption");
    if (cap) cap.textContent = text;
    ply = n;
    following = ply === last;
    game.dataset.ply = String(ply);
    history.replaceState(null, "", "?ply=" + ply + themeQuery);
    markMoves();
  }

  document.addEventListener("click", (e) => {
    const a = e.target.closest("#moves a, #controls a");
    if (!a) return;
    e.preventDefault();
    show(Number(a.dataset.ply));
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("input, textarea")) return;
    const to = { ArrowLeft: want - 1, ArrowRight: want + 1, Home: 0, End: last }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    show(to);
  });

  // Clocks tick between updates: the running one counts down from what the server said.
  let since = Date.now();
  function tick() {
    for (const c of document.querySelectorAll(".clock")) {
      let ms = Number(c.dataset.ms);
      if (c.dataset.running === "1") ms = Math.max(0, ms - (Date.now() - since));
      const s = Math.ceil(ms / 1000);
      const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
      const t = c.querySelector("time");
      if (t) t.textContent = (h > 0 ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(r).padStart(2, "0");
    }
  }
  setInterval(tick, 500);

  if (game.dataset.live !== "1" || !window.EventSource) return;
  // The page's parts as the server last sent them. An update carries each changed part whole
  // (a string) or as an edit of the text sent before (an array: keep n tokens, drop -n, insert
  // a string; a token is a tag with the text after it). The server sends an edit only to a
  // stream whose last update was the text it edits.
  const parts = {};
  function patch(old, ops) {
    const t = old.split(/(?=<)/);
    let i = 0, out = "";
    for (const op of ops) {
      if (typeof op === "string") out += op;
      else if (op > 0) { out += t.slice(i, i + op).join(""); i += op; }
      else i -= op;
    }
    return out + t.slice(i).join("");
  }
  const events = new EventSource("/game/" + id + "/events" + (theme ? "?theme=" + encodeURIComponent(theme) : ""));
  events.addEventListener("update", (e) => {
    const u = JSON.parse(e.data);
    for (const k of ["status", "clocks", "board", "moves", "controls"]) {
      if (typeof u[k] === "string") parts[k] = u[k];
      else if (Array.isArray(u[k])) parts[k] = patch(parts[k] || "", u[k]);
    }
    last = u.last;
    game.dataset.last = String(last);
    document.getElementById("status").innerHTML = parts.status;
    document.getElementById("clocks").innerHTML = parts.clocks;
    since = Date.now();
    document.getElementById("moves").innerHTML = parts.moves;
    document.getElementById("controls").innerHTML = parts.controls;
    if (following || !document.getElementById("board")) {
      document.getElementById("board-area").innerHTML = parts.board;
      ply = last;
      want = last;
      game.dataset.ply = String(ply);
      if (params.has("ply")) history.replaceState(null, "", "?ply=" + ply + themeQuery);
    }
    markMoves();
    if (!u.live) events.close();
  });
})();
