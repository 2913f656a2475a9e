// The playtest page: draws the board and the holder on one canvas, lets the
// tester drag pieces with a mouse or a finger (Pointer Events), and asks the
// server for everything: the server deals, checks each move and keeps it.
"use strict";
(function () {
  const token = document.body.dataset.token || "";
  const canvas = document.getElementById("game");
  const ctx = canvas.getContext("2d");
  const say = (text) => { document.getElementById("message").textContent = text || ""; };

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
  let busy = false;      // a request is in flight
  let drag = null;       // {slot, px, py, lift}
  let flash = null;      // {cells, until}
  let dealtAt = performance.now();
  let geo = null;        // layout in CSS pixels

  async function api(path, body) {
    const r = await fetch("api/" + path, {
      method: "POST",
      headers: { "content-type": "application/json", "x-playtest-token": token },
      body: JSON.stringify(body),
      cache: "no-store",
    });
    let json = null;
    try { json = await r.json(); } catch (e) { json = { error: "the server's answer could not be read" }; }
    return { ok: r.ok, status: r.status, body: json };
  }

  function setState(next) {
    const newDeal = !state || next.game !== state.game || next.round !== state.round ||
      next.session !== state.session;
    state = next;
    if (newDeal) dealtAt = performance.now();
    document.getElementById("score").textContent = String(state.score);
    document.getElementById("round").textContent = String(state.round + 1);
    document.getElementById("final").textContent = String(state.score);
    document.getElementById("over").hidden = !state.over;
    document.body.dataset.game = String(state.game);
    document.body.dataset.moves = String(state.moves);
    layout();
  }

  async function load(fresh) {
    for (let wait = 500; ; wait = Math.min(wait * 2, 8000)) {
      try {
        const r = await api("state", { tester, fresh: !!fresh });
        if (r.ok) { setState(r.body); say(""); return; }
        say(r.body.error || "The playtest is not available.");
        if (r.status === 403) return;
      } catch (e) {
        say("Reconnecting…");
      }
      await new Promise((done) => setTimeout(done, wait));
    }
  }

  // Board on top, holder below; cells as large as the width allows.
  function layout() {
    if (!state) return;
    const width = Math.min(window.innerWidth, 480);
    const pad = 10;
    const cell = Math.floor((width - 2 * pad) / state.width);
    const boardW = cell * state.width, boardH = cell * state.height;
    const slots = state.holder.length;
    const slotW = Math.floor(boardW / slots);
    const small = Math.max(8, Math.floor(cell * 0.55));
    const holderH = small * 5 + 24;
    const height = pad + boardH + 12 + holderH;
    const dpr = window.devicePixelRatio || 1;
    canvas.style.width = width + "px";
    canvas.style.height = height + "px";
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    geo = { width, height, cell, bx: Math.floor((width - boardW) / 2), by: pad, boardW, boardH,
      hy: pad + boardH + 12, holderH, slotW, small };
    draw();
  }

  function filled(x, y) { return state.board[y][x] !== "."; }

  // Where a dragged piece would land, or null: its top-left cell.
  function landing(d) {
    const p = state.holder[d.slot];
    if (!p) return null;
    const left = d.px - (p.width * geo.cell) / 2 - geo.bx;
    const top = d.py - d.lift - (p.height * geo.cell) / 2 - geo.by;
    const x = Math.round(left / geo.cell), y = Math.round(top / geo.cell);
    if (x < 0 || y < 0 || x + p.width > state.width || y + p.height > state.height) return null;
    for (const [cx, cy] of p.cells) if (filled(x + cx, y + cy)) return null;
    return { x, y };
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
    if (!geo) return;
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
    const slot = drag.slot;
    drag = null;
    if (at) place(slot, at.x, at.y); else draw();
  });

  async function place(slot, x, y) {
    busy = true;
    const ms = Math.max(0, Math.round(performance.now() - dealtAt));
    try {
      const r = await api("move", { tester, session: state.session, game: state.game, seen: state.moves, slot, x, y, ms });
      if (r.ok) {
        flash = r.body.cleared.length ? { cells: r.body.cleared, until: performance.now() + 300 } : null;
        setState(r.body.state);
        say("");
      } else {
        say(r.body.error || "That move was not taken.");
        await load(false);
      }
    } catch (e) {
      // The move may or may not have been kept: ask the server.
      say("Reconnecting…");
      await load(false);
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
      if (r.ok) setState(r.body); else { say(r.body.error); await load(false); }
    } catch (e) { await load(false); } finally { busy = false; }
  }

  document.getElementById("again").addEventListener("click", newGame);
  document.getElementById("restart").addEventListener("click", () => {
    if (state && !state.over && state.moves > 0 && !confirm("Leave this game and start a new one?")) return;
    newGame();
  });
  document.getElementById("fresh").addEventListener("click", () => { if (!busy) load(true); });
  window.addEventListener("resize", layout);

  // For tests and the curious: the state, and where to drag to place the
  // piece of `slot` with its top-left at (x, y), in viewport pixels.
  window.playtest = {
    state: () => state,
    busy: () => busy,
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
  load(false);
})();
