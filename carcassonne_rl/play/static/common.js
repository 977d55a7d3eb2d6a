// carcassonne-rl play page: state, requests, the side panel, replay controls.
// Tile-game drawing is in tile.js, card-game drawing in card.js.
"use strict";

const PLAYER_COLOURS = ["#d72828", "#285ad2", "#f0c800", "#28a03c", "#1e1e1e"];
const SVG_NS = "http://www.w3.org/2000/svg";

// An element; a `style` attribute goes through the CSSOM (the page's CSP allows no inline
// style attributes).
function el(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "style") node.style.cssText = v;
    else node.setAttribute(k, v);
  }
  if (text !== undefined) node.textContent = text;
  return node;
}

function svgEl(tag, attrs) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  return node;
}

// Show or hide an element (SVG elements have no `hidden` property, so the attribute).
function show(id, visible) {
  const node = document.getElementById(id);
  if (visible) node.removeAttribute("hidden");
  else node.setAttribute("hidden", "");
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// A follower: head and body in unit size, top-left at (x, y); lying for farmers.
function meeplePath(x, y, s, lying) {
  const pts = lying
    ? [[0.25, 0.3], [0.95, 0.22], [0.95, 0.42], [0.7, 0.46], [0.95, 0.5], [0.95, 0.7], [0.25, 0.62]]
    : [[0.3, 0.3], [0.7, 0.3], [1, 0.5], [0.68, 0.55], [0.9, 1], [0.55, 1], [0.5, 0.78],
       [0.45, 1], [0.1, 1], [0.32, 0.55], [0, 0.5]];
  const head = lying ? [0.16, 0.46, 0.14] : [0.5, 0.17, 0.17];
  const body = "M" + pts.map(([px, py]) => `${x + px * s},${y + py * s}`).join("L") + "Z";
  const [hx, hy, hr] = head;
  const c = `M${x + (hx - hr) * s},${y + hy * s}a${hr * s},${hr * s} 0 1,0 ${2 * hr * s},0` +
    `a${hr * s},${hr * s} 0 1,0 ${-2 * hr * s},0Z`;
  return body + c;
}

function meeple(x, y, size, player, lying) {
  return svgEl("path", {
    d: meeplePath(x, y, size, lying), fill: PLAYER_COLOURS[player], stroke: "#000",
    "stroke-width": size * 0.06, class: `meeple p${player}`,
  });
}

const App = {
  payload: null,
  art: null,
  mode: "play",
  gameId: null,
  busy: false,
  delay: 600,
  shownEvents: 0,

  async start() {
    const params = new URLSearchParams(location.search);
    const fromPage = parseInt(document.body.dataset.stepDelay, 10);
    this.delay = params.has("delay") ? parseInt(params.get("delay"), 10) || 0
      : (Number.isNaN(fromPage) ? 600 : fromPage);
    document.getElementById("btn-new").addEventListener("click", () => this.newGame());
    const art = await this.request("GET", "/api/tiles");
    this.art = art.data;
    if (location.pathname.startsWith("/replay")) {
      this.mode = "replay";
      this.setupReplay();
      const step = parseInt(params.get("step") || "0", 10) || 0;
      await this.loadStep(step);
    } else {
      this.gameId = decodeURIComponent(location.pathname.split("/").pop());
      const res = await this.request("GET", `/api/games/${encodeURIComponent(this.gameId)}`);
      if (!res.ok) return this.showMessage(res.data.error || "cannot load the game");
      this.render(res.data);
    }
  },

  async request(method, url, body) {
    const options = { method, headers: {} };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    try {
      const response = await fetch(url, options);
      const data = await response.json();
      return { ok: response.ok, status: response.status, data };
    } catch (err) {
      return { ok: false, status: 0, data: { error: `no answer from the server (${err})` } };
    }
  },

  setBusy(flag) {
    this.busy = flag;
    document.body.dataset.busy = flag ? "1" : "0";
  },

  showMessage(text, info) {
    const box = document.getElementById("message");
    box.textContent = text;
    box.className = info ? "message info" : "message";
    box.hidden = !text;
  },

  // Send the human's move; animate the agents' answers; draw the new state.
  async act(action) {
    if (this.busy || this.mode !== "play") return;
    const p = this.payload;
    this.setBusy(true);
    this.showMessage("");
    const res = await this.request("POST", `/api/games/${encodeURIComponent(this.gameId)}/action`,
      { seat: p.seat, action, version: p.version });
    if (!res.ok) {
      this.showMessage(res.data.error || `the server refused the move (${res.status})`);
      this.setBusy(false);
      return;
    }
    this.showEvents(res.data.decision);
    let log = p.log.concat([res.data.decision]);
    for (const frame of res.data.frames) {
      log = log.concat([frame.decision]);
      frame.log = log;
      frame.names = p.names;
      this.render(frame);
      this.showEvents(frame.decision);
      if (this.delay > 0) await sleep(this.delay);
    }
    this.render(res.data.state);
    this.setBusy(false);
  },

  async undo() {
    if (this.busy) return;
    this.setBusy(true);
    const res = await this.request("POST", `/api/games/${encodeURIComponent(this.gameId)}/undo`,
      { seat: this.payload.seat });
    if (!res.ok) this.showMessage(res.data.error);
    else this.render(res.data.state);
    this.setBusy(false);
  },

  // A new game with the same options and a fresh deal (asks first if this one is not over).
  async newGame() {
    if (this.busy || this.mode !== "play" || !this.payload) return;
    if (!this.payload.is_over && !window.confirm("Leave this game and deal a new one?")) return;
    this.setBusy(true);
    const res = await this.request("POST", `/api/games/${encodeURIComponent(this.gameId)}/new`,
      { seat: this.payload.seat });
    if (!res.ok) {
      this.showMessage(res.data.error || `the server refused a new game (${res.status})`);
      this.setBusy(false);
      return;
    }
    location.assign(res.data.url + location.search);
  },

  // An illegal click: say why, change nothing.
  refuse(text) {
    this.showMessage(text);
  },

  myTurn() {
    const p = this.payload;
    return this.mode === "play" && p && p.legal && !p.is_over && !this.busy;
  },

  render(payload) {
    show("btn-new", this.mode === "play"); // first: the header's height sets the board's
    this.payload = payload;
    payload.log = payload.log || [];
    document.body.dataset.version = payload.version;
    document.body.dataset.phase = payload.phase;
    document.body.dataset.over = payload.is_over ? "1" : "0";
    document.body.dataset.mine = payload.legal ? "1" : "0";
    document.body.dataset.game = payload.game;
    const title = payload.game === "carcassonne"
      ? "Carcassonne" + (payload.expansions.length ? " + " + payload.expansions.join(" + ") : "")
      : "Cardcassonne";
    document.getElementById("title").textContent =
      this.mode === "replay" ? `Replay: ${title} (${payload.name})` : title;
    document.getElementById("status").textContent = this.statusLine(payload);
    if (payload.game === "carcassonne") TileView.render(payload);
    else CardView.render(payload);
    this.renderLog(payload);
    this.renderEvents(payload);
    this.renderSummary(payload);
  },

  // The end of the game: final ranking, winners, where the record was saved.
  renderSummary(p) {
    const box = document.getElementById("summary");
    box.innerHTML = "";
    box.hidden = !p.is_over;
    if (!p.is_over) return;
    const names = p.names || [];
    const who = (seat) => `P${seat}${names[seat] ? " " + names[seat] : ""}`;
    const mine = p.seat !== null && p.seat !== undefined && p.winners.includes(p.seat);
    const head = this.mode === "play"
      ? (mine ? (p.winners.length > 1 ? "Game over: you share the win!" : "Game over: you win!")
        : "Game over: you lose.")
      : "Game over.";
    box.append(el("h2", {}, head));
    const order = [...Array(p.players).keys()].sort((a, b) => p.scores[b] - p.scores[a] || a - b);
    const table = el("table", { class: "players", id: "final-scores" });
    const header = el("tr");
    for (const t of ["place", "player", "points"]) header.append(el("th", {}, t));
    table.append(header);
    order.forEach((seat) => {
      const place = 1 + order.filter((q) => p.scores[q] > p.scores[seat]).length;
      const row = el("tr", { class: p.winners.includes(seat) ? "winner" : "" });
      row.append(el("td", {}, String(place)), el("td", {}, who(seat)),
        el("td", {}, String(p.scores[seat])));
      table.append(row);
    });
    box.append(table);
    if (p.saved) box.append(el("div", { class: "hint" }, `record saved to ${p.saved}`));
    if (this.mode === "play") {
      box.append(this.button("new game (same options, new deal)", () => this.newGame(),
        { id: "btn-new-summary", class: "primary" }));
    }
  },

  statusLine(p) {
    const names = p.names || [];
    const who = (seat) => `P${seat}${names[seat] ? " (" + names[seat] + ")" : ""}`;
    if (p.is_over) {
      const w = p.winners.map(who).join(" and ");
      return `Game over. Winner: ${w}. Scores ${p.scores.join(" / ")}` +
        (p.saved ? ` - saved to ${p.saved}` : "");
    }
    if (this.mode === "replay") return `step ${p.step} of ${p.steps}: ${who(p.current_player)} to decide`;
    if (p.legal) return "Your move";
    return `${who(p.current_player)} is thinking...`;
  },

  eventText(e) {
    const what = e.cards ? e.cards.join(" ") : (e.tiles && e.tiles.length ? `${e.tiles.length} tiles` : "");
    const extra = e.figure ? ` figure ${e.figure}` : "";
    const card = e.card ? ` (message ${e.card})` : "";
    return `P${e.player} +${e.points} ${e.kind}${card}${extra}${what ? ": " + what : ""}` +
      (e.final ? " (final)" : "");
  },

  // Every score event so far, newest first (those of the last decision marked).
  renderEvents(p) {
    const list = document.getElementById("events");
    list.innerHTML = "";
    const events = p.score_events || [];
    const latest = this.mode === "replay" ? p.log[p.step - 1] : p.log[p.log.length - 1];
    const last = latest ? latest.events.length : 0;
    events.forEach((e, i) => {
      const item = el("li", { value: i + 1 }, this.eventText(e));
      if (i >= events.length - last) item.classList.add("new");
      list.insertBefore(item, list.firstChild);
    });
  },

  // The tiles scored by the decision just made, outlined on the board.
  showEvents(decision) {
    if (decision && decision.events.length && this.payload.game === "carcassonne") {
      TileView.flashScored(decision.events);
    }
  },

  renderLog(p) {
    const list = document.getElementById("log");
    list.innerHTML = "";
    const log = p.log || [];
    log.forEach((d) => {
      const item = el("li", { value: d.index + 1, "data-index": d.index });
      item.append(el("span", {}, `P${d.player}: ${d.text}`));
      for (const e of d.events) item.append(el("div", { class: "ev" }, "  " + this.eventText(e)));
      if (this.mode === "replay") {
        item.classList.add("clickable");
        if (d.index + 1 === p.step) item.classList.add("current");
        item.addEventListener("click", () => this.loadStep(d.index + 1));
      }
      list.append(item);
    });
    const current = list.querySelector(".current");
    if (current) current.scrollIntoView({ block: "nearest" });
    else if (this.mode === "play") list.scrollTop = list.scrollHeight;
  },

  // ------------------------------------------------------------------ replay
  setupReplay() {
    document.getElementById("replay-bar").hidden = false;
    const go = (f) => () => this.loadStep(f(this.payload.step, this.payload.steps));
    document.getElementById("first").addEventListener("click", go(() => 0));
    document.getElementById("prev").addEventListener("click", go((s) => Math.max(0, s - 1)));
    document.getElementById("next").addEventListener("click", go((s, n) => Math.min(n, s + 1)));
    document.getElementById("last").addEventListener("click", go((s, n) => n));
    document.getElementById("jump").addEventListener("click", () => {
      const value = parseInt(document.getElementById("jump-step").value, 10);
      this.loadStep(Number.isNaN(value) ? -1 : value);
    });
  },

  async loadStep(step) {
    const res = await this.request("GET", `/api/replay?step=${encodeURIComponent(step)}`);
    if (!res.ok) return this.showMessage(res.data.error);
    this.showMessage("");
    const p = res.data;
    this.render(p);
    document.getElementById("jump-step").value = p.step;
    document.getElementById("step-count").textContent = p.steps;
    if (p.step > 0) this.showEvents(p.log[p.step - 1]);
    history.replaceState(null, "", `/replay?step=${p.step}`);
  },

  // Players table shared by both games; `columns` maps a header to a cell function.
  renderPlayers(p, columns) {
    const box = document.getElementById("players");
    box.innerHTML = "";
    const table = el("table", { class: "players" });
    const head = el("tr");
    head.append(el("th", {}, "seat"));
    for (const name of Object.keys(columns)) head.append(el("th", {}, name));
    table.append(head);
    for (let seat = 0; seat < p.players; seat += 1) {
      const row = el("tr", { class: seat === p.current_player ? "to-move" : "" });
      const cell = el("td");
      cell.append(el("span", { class: "swatch", style: `background:${PLAYER_COLOURS[seat]}` }));
      const name = p.names ? p.names[seat] : "";
      cell.append(document.createTextNode(`P${seat} ${name}`));
      row.append(cell);
      for (const f of Object.values(columns)) row.append(el("td", {}, String(f(seat))));
      table.append(row);
    }
    box.append(table);
  },

  button(label, onClick, attrs) {
    const b = el("button", attrs || {}, label);
    b.addEventListener("click", onClick);
    return b;
  },
};

// Start once every script of the page has run (no inline script: the CSP forbids them).
document.addEventListener("DOMContentLoaded", () => App.start());
