// The playtest page: draws the board and the holder on one canvas, lets the
// tester drag pieces with a mouse or a finger (Pointer Events), and asks the
// server for everything: the server deals, checks each move and keeps it.
// Before a tester's first game it may show the study's text to agree to.
// Everything the server sends is put on the page as text, never as markup.
"use strict";
(function () {
  const token = document.body.dataset.token || "";
  const $ = (id) => document.getElementById(id);
  const canvas = $("game");
  const ctx = canvas.getContext("2d");

  const HINT = "Drag a piece onto the board";
  const OFF_BOARD = "Drop it on the board";
  const NO_FIT = "That piece does not fit there";
  const SHOWN_MS = 2500;   // a refusal stays this long, then fades
  const FADE_MS = 400;     // as page.css's transition on #message

  // A pseudonymous id kept on this device: a returning tester is the same player.
  function testerId() {
    let id = null;
    try { id = localStorage.getItem("tenten.tester"); } catch (e) { /* private mode */ }
    if (!id || !/^[0-9a-f]{32}$/.test(id)) {
      const bytes = new Uint8Array(16);
      crypto.getRandomValues(bytes);
      id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      try { localStorage.setItem("tenten.tester", id); } catch (e) { /* kept for this visit only */ }
    }
    return id;
  }
  const tester = testerId();

  let state = null;      // the server's view of the game
  let study = null;      // the study to agree to, while it is shown
  let busy = false;      // a request is in flight
  let drag = null;       // {slot, px, py, sx, sy, lift, pointer}
  let flash = null;      // {cells, until}
  let dealtAt = performance.now();
  let geo = null;        // layout in CSS pixels

  // The line above the board: a refusal for a moment, else what is wrong
  // with the connection, else the first deal's hint, else nothing.
  let refusal = null;    // {text, timers}
  let status = "";

  function sentence(text) {
    const t = String(text || "").trim();
    return t ? t.charAt(0).toUpperCase() + t.slice(1) : "";
  }

  function hinting() {
    return !!state && !state.over && state.session === 0 && state.game === 0 && state.moves === 0;
  }

  function showMessage() {
    const m = $("message");
    let text = "", kind = "";
    if (refusal) { text = refusal.text; kind = "refusal"; } else if (status) { text = status; kind = "status"; } else if (hinting()) { text = HINT; kind = "hint"; }
    m.textContent = text;
    m.classList.remove("refusal", "status", "hint");
    if (kind) m.classList.add(kind);
  }

  function clearRefusal() {
    if (!refusal) return;
    refusal.timers.forEach(clearTimeout);
    refusal = null;
    $("message").classList.remove("fading");
  }

  // Says why a move was not made, in words, for a moment.
  function refuse(text) {
    clearRefusal();
    const m = $("message");
    refusal = { text: sentence(text), timers: [] };
    showMessage();
    const mine = refusal;
    mine.timers.push(setTimeout(() => {
      m.classList.add("fading");
      mine.timers.push(setTimeout(() => {
        if (refusal !== mine) return;
        refusal = null;
        showMessage();
        m.classList.remove("fading");
      }, FADE_MS + 50));
    }, SHOWN_MS));
  }

  function setStatus(text) { status = sentence(text); showMessage(); }

  async function api(path, body) {
    const r = await fetch("api/" + path, {
      method: "POST",
      headers: { "content-type": "application/json", "x-playtest-token": token },
      body: JSON.stringify(body),
      cache: "no-store",
    });
    let json = null;
    try { json = await r.json(); } catch (e) { json = { error: "the server's answer could not be read" }; }
    if (!json || typeof json !== "object") json = { error: "the server's answer could not be read" };
    return { ok: r.ok, status: r.status, body: json };
  }

  // The server's answer to `state` or `agree`: the game, or the study.
  function arrive(body) {
    if (body.study && !body.board) showStudy(body.study); else setState(body);
  }

  function setState(next) {
    const newDeal = !state || next.game !== state.game || next.round !== state.round ||
      next.session !== state.session;
    state = next;
    if (study) hideStudy();
    if (newDeal) dealtAt = performance.now();
    $("score").textContent = String(state.score);
    $("round").textContent = String(state.round + 1);
    $("final").textContent = String(state.score);
    $("over").hidden = !state.over;
    document.body.dataset.game = String(state.game);
    document.body.dataset.moves = String(state.moves);
    showMessage();
    layout();
  }

  // The study, full-screen: its title, its text as paragraphs, whom to ask.
  function showStudy(s) {
    study = { title: String(s.title || ""), text: String(s.text || ""), contact: String(s.contact || "") };
    state = null;
    geo = null;
    drag = null;
    $("study-title").textContent = study.title;
    const body = $("study-body");
    body.replaceChildren();
    for (const para of study.text.split(/\r?\n[ \t]*\r?\n/)) {
      if (!para.trim()) continue;
      const p = document.createElement("p");
      p.textContent = para.trim();
      body.appendChild(p);
    }
    $("study-contact").textContent = "Contact: " + study.contact;
    $("study-message").textContent = "";
    $("play").hidden = true;
    $("study").hidden = false;
    $("study-text").scrollTop = 0;
  }

  function hideStudy() {
    study = null;
    $("study").hidden = true;
    $("play").hidden = false;
  }

  async function agree() {
    if (busy || !study) return;
    busy = true;
    const button = $("agree");
    button.disabled = true;
    $("study-message").textContent = "";
    try {
      const r = await api("agree", { tester });
      if (r.ok) arrive(r.body);
      else $("study-message").textContent = sentence(r.body.error || "The playtest is not available.");
    } catch (e) {
      $("study-message").textContent = "The server could not be reached; try again.";
    } finally {
      busy = false;
      button.disabled = false;
    }
  }

  async function load() {
    for (let wait = 500; ; wait = Math.min(wait * 2, 8000)) {
      try {
        const r = await api("state", { tester });
        if (r.ok) { status = ""; arrive(r.body); return; }
        setStatus(r.body.error || "The playtest is not available.");
        if (r.status === 403) return;
      } catch (e) {
        setStatus("Reconnecting…");
      }
      await new Promise((done) => setTimeout(done, wait));
    }
  }

  // Board on top, holder below; cells as large as both the width and the
  // height left by the header, the message line and the footer allow.
  const PAD = 10, GAP = 12, HOLDER_CELLS = 5, HOLDER_PAD = 24;
  const smallOf = (cell) => Math.max(8, Math.floor(cell * 0.55));
  function layout() {
    if (!state || $("play").hidden) return;
    const width = Math.min(document.documentElement.clientWidth || window.innerWidth, 480);
    const taken = document.querySelector("header").offsetHeight + $("message").offsetHeight +
      document.querySelector("footer").offsetHeight;
    const room = window.innerHeight - taken;
    const tall = (c) => PAD + c * state.height + GAP + smallOf(c) * HOLDER_CELLS + HOLDER_PAD;
    let cell = Math.floor((width - 2 * PAD) / state.width);
    while (cell > 8 && tall(cell) > room) cell--;
    const boardW = cell * state.width, boardH = cell * state.height;
    const small = smallOf(cell);
    const holderH = small * HOLDER_CELLS + HOLDER_PAD;
    const height = tall(cell);
    const slotW = Math.floor(boardW / state.holder.length);
    const dpr = window.devicePixelRatio || 1;
    canvas.style.width = width + "px";
    canvas.style.height = height + "px";
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    // The header, the message line and the footer as wide as the board.
    document.documentElement.style.setProperty("--column", boardW + 2 * PAD + "px");
    geo = { width, height, cell, bx: Math.floor((width - boardW) / 2), by: PAD, boardW, boardH,
      hy: PAD + boardH + GAP, holderH, slotW, small };
    draw();
  }

  function filled(x, y) { return state.board[y][x] !== "."; }

  // Where a dragged piece's top-left cell is over the board (it may not fit).
  function aim(d) {
    const p = state.holder[d.slot];
    const left = d.px - (p.width * geo.cell) / 2 - geo.bx;
    const top = d.py - d.lift - (p.height * geo.cell) / 2 - geo.by;
    return { p, x: Math.round(left / geo.cell), y: Math.round(top / geo.cell) };
  }

  // Where a dragged piece would land, or null: its top-left cell.
  function landing(d) {
    if (!state.holder[d.slot]) return null;
    const { p, x, y } = aim(d);
    if (x < 0 || y < 0 || x + p.width > state.width || y + p.height > state.height) return null;
    for (const [cx, cy] of p.cells) if (filled(x + cx, y + cy)) return null;
    return { x, y };
  }

  // Why a dropped piece did not land, in words: its middle off the board,
  // or on the board where it does not fit; "" when it was put back (the
  // finger or mouse let go over the holder, where it came from).
  function why(d) {
    const mx = d.px - geo.bx, my = d.py - d.lift - geo.by;
    if (mx >= 0 && my >= 0 && mx < geo.boardW && my < geo.boardH) return NO_FIT;
    return d.py >= geo.hy ? "" : OFF_BOARD;
  }

  const colours = ["#4cc9f0", "#f72585", "#ffd166", "#06d6a0", "#f78c6b", "#b388eb", "#8ac926", "#ff595e", "#4895ef"];
  function colour(p) { return colours[p.cells.length % colours.length]; }

  function square(x, y, size, fill) {
    ctx.fillStyle = fill;
    ctx.fillRect(x + 1, y + 1, size - 2, size - 2);
  }

  function slotOrigin(i) {
    const p = state.holder[i];
    const x = geo.bx + i * geo.slotW + (geo.slotW - p.width * geo.small) / 2;
    const y = geo.hy + (geo.holderH - p.height * geo.small) / 2;
    return { x, y };
  }

  function draw() {
    if (!geo || !state) return;
    ctx.clearRect(0, 0, geo.width, geo.height);
    const now = performance.now();
    const flashing = flash && now < flash.until ? new Set(flash.cells.map(([x, y]) => x + "," + y)) : null;
    for (let y = 0; y < state.height; y++) {
      for (let x = 0; x < state.width; x++) {
        const px = geo.bx + x * geo.cell, py = geo.by + y * geo.cell;
        let fill = filled(x, y) ? "#7f8fb3" : "#2b3548";
        if (flashing && flashing.has(x + "," + y)) fill = "#ffffff";
        square(px, py, geo.cell, fill);
      }
    }
    // The holder's tray.
    ctx.fillStyle = "#242d40";
    ctx.fillRect(geo.bx, geo.hy, geo.boardW, geo.holderH);
    if (drag) {
      const at = landing(drag);
      const p = state.holder[drag.slot];
      if (at) for (const [cx, cy] of p.cells) {
        square(geo.bx + (at.x + cx) * geo.cell, geo.by + (at.y + cy) * geo.cell, geo.cell, "rgba(255,255,255,0.28)");
      }
    }
    state.holder.forEach((p, i) => {
      if (!p || (drag && drag.slot === i)) return;
      const o = slotOrigin(i);
      for (const [cx, cy] of p.cells) square(o.x + cx * geo.small, o.y + cy * geo.small, geo.small, colour(p));
    });
    if (drag) {
      const p = state.holder[drag.slot];
      const left = drag.px - (p.width * geo.cell) / 2, top = drag.py - drag.lift - (p.height * geo.cell) / 2;
      ctx.globalAlpha = 0.9;
      for (const [cx, cy] of p.cells) square(left + cx * geo.cell, top + cy * geo.cell, geo.cell, colour(p));
      ctx.globalAlpha = 1;
    }
    if (flashing) requestAnimationFrame(draw);
  }

  function point(e) {
    const r = canvas.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  }

  function slotAt(p) {
    if (!state || state.over || p.y < geo.hy || p.y > geo.hy + geo.holderH) return -1;
    const i = Math.floor((p.x - geo.bx) / geo.slotW);
    return i >= 0 && i < state.holder.length && state.holder[i] ? i : -1;
  }

  // A finger covers what it drags: the piece rides above it.
  function lift(e) { return e.pointerType === "touch" ? geo.cell * 1.5 : 0; }

  canvas.addEventListener("pointerdown", (e) => {
    if (busy || !geo) return;
    const p = point(e);
    const slot = slotAt(p);
    if (slot < 0) return;
    e.preventDefault();
    canvas.setPointerCapture(e.pointerId);
    drag = { slot, px: p.x, py: p.y, lift: lift(e), pointer: e.pointerId };
    draw();
  });
  canvas.addEventListener("pointermove", (e) => {
    if (!drag || e.pointerId !== drag.pointer) return;
    const p = point(e);
    drag.px = p.x; drag.py = p.y;
    draw();
  });
  canvas.addEventListener("pointercancel", () => { drag = null; draw(); });
  canvas.addEventListener("pointerup", (e) => {
    if (!drag || e.pointerId !== drag.pointer) return;
    const p = point(e);
    drag.px = p.x; drag.py = p.y;
    const at = landing(drag);
    const d = drag;
    drag = null;
    if (at) { place(d.slot, at.x, at.y); return; }
    const reason = why(d);
    if (reason) refuse(reason);
    draw();
  });

  async function place(slot, x, y) {
    busy = true;
    const ms = Math.max(0, Math.round(performance.now() - dealtAt));
    try {
      const r = await api("move", { tester, session: state.session, game: state.game, seen: state.moves, slot, x, y, ms });
      if (r.ok) {
        flash = r.body.cleared.length ? { cells: r.body.cleared, until: performance.now() + 300 } : null;
        clearRefusal();
        status = "";
        setState(r.body.state);
      } else {
        refuse(r.body.error || "That move was not taken.");
        await load();
      }
    } catch (e) {
      // The move may or may not have been kept: ask the server.
      setStatus("Reconnecting…");
      await load();
    } finally {
      busy = false;
      draw();
    }
  }

  async function newGame() {
    if (busy || !state) return;
    busy = true;
    try {
      const r = await api("new-game", { tester, session: state.session, game: state.game });
      if (r.ok) { clearRefusal(); setState(r.body); } else { refuse(r.body.error || "No new game was started."); await load(); }
    } catch (e) { setStatus("Reconnecting…"); await load(); } finally { busy = false; }
  }

  $("agree").addEventListener("click", agree);
  $("again").addEventListener("click", newGame);
  $("restart").addEventListener("click", () => {
    if (state && !state.over && state.moves > 0 && !confirm("Leave this game and start a new one?")) return;
    newGame();
  });
  window.addEventListener("resize", layout);

  function box(left, top, width, height) {
    const r = canvas.getBoundingClientRect();
    return { left: r.left + left, top: r.top + top, right: r.left + left + width, bottom: r.top + top + height };
  }

  // For tests and the curious: the state, the study shown, the message
  // line, where the board and holder are, and where to drag to place the
  // piece of `slot` with its top-left at (x, y), in viewport pixels.
  window.playtest = {
    state: () => state,
    study: () => study,
    busy: () => busy,
    message() {
      const m = $("message");
      const kind = ["refusal", "status", "hint"].find((k) => m.classList.contains(k)) || "";
      return { text: m.textContent, kind, fading: m.classList.contains("fading") };
    },
    rects() {
      if (!geo) return null;
      return {
        board: box(geo.bx, geo.by, geo.boardW, geo.boardH),
        holder: box(geo.bx, geo.hy, geo.boardW, geo.holderH),
        cell: geo.cell,
      };
    },
    dragPath(slot, x, y, pointerType) {
      const r = canvas.getBoundingClientRect();
      const p = state.holder[slot];
      const o = slotOrigin(slot);
      const l = pointerType === "touch" ? geo.cell * 1.5 : 0;
      return {
        from: [Math.round(r.left + o.x + (p.width * geo.small) / 2), Math.round(r.top + o.y + (p.height * geo.small) / 2)],
        to: [Math.round(r.left + geo.bx + (x + p.width / 2) * geo.cell), Math.round(r.top + geo.by + (y + p.height / 2) * geo.cell + l)],
      };
    },
  };
  load();
})();
