// Tile game: the board as SVG (zoom and pan), placements, followers, The Messages choices.
"use strict";

const FIELD_GREEN = "#78af46";
const CITY_BROWN = "#c4965a";
const ROAD_WHITE = "#eee8d7";

const TileView = {
  view: null, // viewBox {x, y, w, h} in tile units
  userMoved: false,
  selection: null, // {x, y, rotations, index}
  drag: null,
  bound: false,

  render(p) {
    show("board", true);
    show("board-tools", true);
    show("cards", false);
    if (!this.bound) this.bind();
    if (!this.legalCells(p).some((c) => this.selection && c.x === this.selection.x &&
        c.y === this.selection.y)) {
      this.selection = null;
    }
    this.drawBoard(p);
    this.drawSide(p);
  },

  legalCells(p) {
    return (App.mode === "play" && p.legal && p.legal.placements) || [];
  },

  // ------------------------------------------------------------------ board
  bind() {
    this.bound = true;
    const svg = document.getElementById("board");
    svg.addEventListener("pointerdown", (ev) => {
      this.drag = { x: ev.clientX, y: ev.clientY, moved: false, view: { ...this.view } };
    });
    svg.addEventListener("pointermove", (ev) => {
      if (!this.drag) return;
      const dx = ev.clientX - this.drag.x;
      const dy = ev.clientY - this.drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 4) this.drag.moved = true;
      if (!this.drag.moved) return;
      const scale = this.view.w / svg.clientWidth;
      this.view.x = this.drag.view.x - dx * scale;
      this.view.y = this.drag.view.y - dy * scale;
      this.userMoved = true;
      this.applyView();
    });
    const end = () => {
      setTimeout(() => { this.drag = null; }, 0);
    };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointerleave", end);
    svg.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      const pt = this.toBoard(ev);
      this.zoom(ev.deltaY > 0 ? 1.15 : 1 / 1.15, pt);
    }, { passive: false });
    document.getElementById("zoom-in").addEventListener("click", () => this.zoom(1 / 1.25));
    document.getElementById("zoom-out").addEventListener("click", () => this.zoom(1.25));
    document.getElementById("fit").addEventListener("click", () => {
      this.userMoved = false;
      this.fit(App.payload);
    });
    window.addEventListener("resize", () => App.payload && this.fit(App.payload));
    document.addEventListener("keydown", (ev) => {
      if (!this.selection || ev.target.tagName === "INPUT") return;
      if (ev.key === "r") document.getElementById("btn-rotate").click();
      if (ev.key === "Enter") this.placeSelected();
    });
  },

  zoom(factor, centre) {
    const v = this.view;
    const c = centre || { x: v.x + v.w / 2, y: v.y + v.h / 2 };
    v.x = c.x - (c.x - v.x) * factor;
    v.y = c.y - (c.y - v.y) * factor;
    v.w *= factor;
    v.h *= factor;
    this.userMoved = true;
    this.applyView();
  },

  toBoard(ev) {
    const svg = document.getElementById("board");
    const pt = svg.createSVGPoint();
    pt.x = ev.clientX;
    pt.y = ev.clientY;
    const q = pt.matrixTransform(svg.getScreenCTM().inverse());
    return { x: q.x, y: q.y };
  },

  fit(p) {
    const svg = document.getElementById("board");
    let xs = p.tiles.map((t) => t[1]);
    let ys = p.tiles.map((t) => t[2]);
    for (const c of this.legalCells(p)) { xs.push(c.x); ys.push(c.y); }
    const x0 = Math.min(...xs) - 1, x1 = Math.max(...xs) + 2;
    const y0 = Math.min(...ys) - 1, y1 = Math.max(...ys) + 2;
    let w = Math.max(x1 - x0, 5), h = Math.max(y1 - y0, 4);
    const aspect = (svg.clientWidth || 800) / (svg.clientHeight || 600);
    if (w / h < aspect) w = h * aspect; else h = w / aspect;
    this.view = { x: (x0 + x1) / 2 - w / 2, y: (y0 + y1) / 2 - h / 2, w, h };
    this.applyView();
  },

  applyView() {
    const v = this.view;
    document.getElementById("board").setAttribute("viewBox", `${v.x} ${v.y} ${v.w} ${v.h}`);
  },

  drawTile(parent, letter, x, y, rot, extra) {
    const shapes = App.art[letter][rot];
    const g = svgEl("g", { transform: `translate(${x},${y})`, class: "tile", ...(extra || {}) });
    g.append(svgEl("rect", { x: 0, y: 0, width: 1, height: 1, fill: FIELD_GREEN }));
    for (const line of shapes.roads) {
      const pts = line.map((q) => q.join(",")).join(" ");
      g.append(svgEl("polyline", { points: pts, fill: "none", stroke: "#5a503c",
        "stroke-width": 0.16, "stroke-linejoin": "round" }));
      g.append(svgEl("polyline", { points: pts, fill: "none", stroke: ROAD_WHITE,
        "stroke-width": 0.1, "stroke-linejoin": "round" }));
    }
    for (const poly of shapes.cities) {
      g.append(svgEl("polygon", { points: poly.map((q) => q.join(",")).join(" "),
        fill: CITY_BROWN, stroke: CITY_BROWN, "stroke-width": 0.01 }));
    }
    for (const [px, py] of shapes.pennants) {
      const d = 0.09;
      const pts = [[px - d, py - d], [px + d, py - d], [px + d, py + 0.3 * d], [px, py + 1.3 * d],
        [px - d, py + 0.3 * d]];
      g.append(svgEl("polygon", { points: pts.map((q) => q.join(",")).join(" "),
        fill: "#2846aa", stroke: "#fafafa", "stroke-width": 0.015 }));
    }
    if (shapes.cloister) {
      const w = 0.2;
      g.append(svgEl("rect", { x: 0.5 - w, y: 0.5 - w / 2, width: 2 * w, height: 1.5 * w,
        fill: "#e1d7be" }));
      g.append(svgEl("polygon", { fill: "#b43228", points:
        `${0.5 - 1.2 * w},${0.5 - 0.4 * w} 0.5,${0.5 - 1.4 * w} ${0.5 + 1.2 * w},${0.5 - 0.4 * w}` }));
      g.append(svgEl("rect", { x: 0.5 - w / 4, y: 0.5 + 0.3 * w, width: w / 2, height: 0.7 * w,
        fill: "#50321e" }));
    }
    if (shapes.labyrinth) {
      [0.26, 0.18, 0.1].forEach((w, i) => {
        g.append(svgEl("rect", { x: 0.5 - w, y: 0.5 - w, width: 2 * w, height: 2 * w,
          fill: i ? "none" : ROAD_WHITE, stroke: "#1e5a1e", "stroke-width": 0.035 }));
      });
    }
    g.append(svgEl("rect", { x: 0, y: 0, width: 1, height: 1, fill: "none", stroke: "#3c3c3c",
      "stroke-width": 0.015 }));
    parent.append(g);
    return g;
  },

  drawBoard(p) {
    const svg = document.getElementById("board");
    svg.innerHTML = "";
    const world = svgEl("g", { id: "world" });
    svg.append(world);
    world.append(svgEl("rect", { x: -200, y: -200, width: 400, height: 400, fill: "#d9cfb4",
      class: "board-bg" }));
    for (const [letter, x, y, rot] of p.tiles) {
      this.drawTile(world, letter, x, y, rot, { "data-x": x, "data-y": y });
    }
    if (p.tiles.length > 1) {
      const [, x, y] = p.tiles[p.tiles.length - 1];
      world.append(svgEl("rect", { x: x + 0.03, y: y + 0.03, width: 0.94, height: 0.94,
        class: "last-tile" }));
    }
    for (const f of p.followers) {
      const s = 0.3;
      world.append(meeple(f.x + f.spot[0] - s / 2, f.y + f.spot[1] - s / 2, s, f.player, f.lying));
    }
    world.append(svgEl("g", { id: "flash" }));
    const legal = p.legal || {};
    if (App.mode === "play" && legal.placements) {
      for (const c of legal.placements) {
        const selected = this.selection && this.selection.x === c.x && this.selection.y === c.y;
        const cell = svgEl("rect", { x: c.x + 0.04, y: c.y + 0.04, width: 0.92, height: 0.92,
          rx: 0.06, class: "legal-cell" + (selected ? " selected" : ""), "data-x": c.x,
          "data-y": c.y });
        cell.addEventListener("click", (ev) => {
          ev.stopPropagation();
          if (this.drag && this.drag.moved) return;
          this.clickCell(c);
        });
        world.append(cell);
        if (selected) {
          const rot = this.selection.rotations[this.selection.index];
          const ghost = this.drawTile(world, p.current_tile, c.x, c.y, rot,
            { opacity: 0.85, class: "tile ghost" });
          ghost.addEventListener("click", (ev) => {
            ev.stopPropagation();
            this.clickCell(c);
          });
          world.append(svgEl("rect", { x: c.x + 0.02, y: c.y + 0.02, width: 0.96, height: 0.96,
            fill: "none", stroke: "#ff6a00", "stroke-width": 0.06, "pointer-events": "none" }));
        }
      }
    }
    const spots = App.mode === "play" ? legal.follower_spots || legal.recall_spots || [] : [];
    for (const s of spots) {
      const dot = svgEl("circle", { cx: s.x + s.spot[0], cy: s.y + s.spot[1], r: 0.1,
        class: "spot", "data-action": s.text });
      dot.append(svgEl("title", {}));
      dot.firstChild.textContent = s.text;
      dot.addEventListener("click", (ev) => {
        ev.stopPropagation();
        App.act(s.text);
      });
      world.append(dot);
    }
    world.addEventListener("click", (ev) => {
      if (this.drag && this.drag.moved) return;
      this.clickBackground(this.toBoard(ev));
    });
    if (!this.view || !this.userMoved) this.fit(p);
    else this.applyView();
  },

  clickCell(c) {
    if (!App.myTurn()) return App.refuse("wait: it is not your move");
    App.showMessage("");
    if (this.selection && this.selection.x === c.x && this.selection.y === c.y) {
      this.selection.index = (this.selection.index + 1) % c.rotations.length;
    } else {
      this.selection = { x: c.x, y: c.y, rotations: c.rotations, index: 0 };
    }
    this.drawBoard(App.payload);
    this.drawSide(App.payload);
  },

  clickBackground(pt) {
    if (App.mode !== "play") return;
    const p = App.payload;
    const x = Math.floor(pt.x), y = Math.floor(pt.y);
    if (p.is_over) return App.refuse("the game is over");
    if (!p.legal) return App.refuse(`wait: it is P${p.current_player}'s move`);
    if (p.phase === "place_tile") {
      const taken = p.tiles.some((t) => t[1] === x && t[2] === y);
      return App.refuse(taken ? `(${x},${y}) already holds a tile`
        : `tile ${p.current_tile} cannot be placed at (${x},${y}): pick a highlighted square`);
    }
    if (p.phase === "place_follower") {
      return App.refuse("no follower can go there: click a highlighted spot, or 'no follower'");
    }
    return App.refuse("choose one of the options on the right");
  },

  placeSelected() {
    const s = this.selection;
    if (!s) return App.refuse("pick a highlighted square first");
    const rot = s.rotations[s.index];
    this.selection = null;
    App.act(`${App.payload.current_tile} ${s.x},${s.y} r${rot}`);
  },

  flashScored(events) {
    const layer = document.getElementById("flash");
    if (!layer) return;
    layer.innerHTML = "";
    for (const e of events) {
      for (const [x, y] of e.tiles || []) {
        layer.append(svgEl("rect", { x: x + 0.06, y: y + 0.06, width: 0.88, height: 0.88,
          class: "scored-tile", stroke: PLAYER_COLOURS[e.player] }));
      }
    }
  },

  // ------------------------------------------------------------------ side panel
  drawSide(p) {
    const prompt = document.getElementById("prompt");
    const choices = document.getElementById("choices");
    choices.innerHTML = "";
    prompt.textContent = "";
    const legal = App.mode === "play" ? p.legal : null;
    const preview = el("div", { id: "tile-preview" });
    if (p.current_tile) {
      const rot = this.selection ? this.selection.rotations[this.selection.index] : 0;
      const svg = svgEl("svg", { width: 84, height: 84, viewBox: "-0.05 -0.05 1.1 1.1" });
      this.drawTile(svg, p.current_tile, 0, 0, rot);
      preview.append(el("div", {}, `tile to place: ${p.current_tile}`), svg);
    }
    if (legal && legal.placements) {
      prompt.textContent = this.selection
        ? "Click the tile again (or 'rotate', key r) to turn it, then 'place' (Enter)."
        : "Click a highlighted square to put the tile there.";
      choices.append(App.button("rotate", () => this.selection && this.clickCell(
        { x: this.selection.x, y: this.selection.y, rotations: this.selection.rotations }),
      { id: "btn-rotate" }));
      choices.append(App.button("place", () => this.placeSelected(),
        { id: "btn-place", class: "primary" }));
    } else if (legal && legal.follower_spots) {
      prompt.textContent = legal.follower_spots.length
        ? "Place a follower: click a highlighted spot on your tile, or none."
        : "No follower can go on this tile (or none is left).";
      choices.append(App.button("no follower", () => App.act("none"),
        { id: "btn-none", class: "primary" }));
    } else if (legal && legal.recall_spots) {
      prompt.textContent = "Message 8: click the follower to score and take back.";
    } else if (legal && legal.buttons) {
      const m = p.messages || {};
      if (p.phase === "choose_figure" && m.pending_award) {
        prompt.textContent = `You receive ${m.pending_award[1]} points: which figure moves?`;
      } else if (p.phase === "message") {
        prompt.textContent = `Message ${m.card}: ${m.card_title}.`;
      }
      for (const b of legal.buttons) {
        choices.append(App.button(b.label, () => App.act(b.text),
          { "data-action": b.text, class: "choice" }));
      }
    }
    if (App.mode === "play" && p.allow_undo && !p.is_over) {
      choices.append(App.button("undo", () => App.undo(), { id: "btn-undo" }));
    }
    const columns = { score: (s) => p.scores[s], followers: (s) => p.followers_left[s] };
    if (p.messages) columns["A / B"] = (s) => p.messages.figures[s].join(" / ");
    App.renderPlayers(p, columns);
    const extra = document.getElementById("extra");
    extra.innerHTML = "";
    extra.append(preview);
    extra.append(el("div", {}, `tiles left: ${p.tiles_left}` +
      (p.discarded.length ? ` (discarded: ${p.discarded.join(" ")})` : "")));
    const rest = Object.entries(p.remaining).map(([k, v]) => `${k}${v > 1 ? "x" + v : ""}`);
    extra.append(el("div", { class: "hint" }, rest.join(" ")));
    if (p.messages) {
      const m = p.messages;
      extra.append(el("div", {}, `message cards drawn: ${m.drawn}` +
        (m.seen.length ? ` (${m.seen.join(", ")})` : "") +
        (m.card ? ` - now: message ${m.card}, ${m.card_title}` : "")));
    }
    extra.append(this.scoreTrack(p));
  },

  // Score track 0-49 (10 x 5); with The Messages, figure A (circle) and B (square) per seat.
  scoreTrack(p) {
    const svg = svgEl("svg", { id: "track", width: 330, height: 170, viewBox: "0 0 10 5.2" });
    for (let i = 0; i < 50; i += 1) {
      const x = i % 10, y = Math.floor(i / 10);
      svg.append(svgEl("rect", { x: x + 0.02, y: y + 0.02, width: 0.96, height: 0.96,
        fill: i % 5 ? "#f4ecd4" : "#e6d8b0", stroke: "#b9a779", "stroke-width": 0.02 }));
      const t = svgEl("text", { x: x + 0.08, y: y + 0.3, "font-size": 0.26, fill: "#8a7a50" });
      t.textContent = i;
      svg.append(t);
    }
    const markers = [];
    for (let s = 0; s < p.players; s += 1) {
      if (p.messages) {
        markers.push([s, p.messages.figures[s][0], "A"], [s, p.messages.figures[s][1], "B"]);
      } else {
        markers.push([s, p.scores[s], ""]);
      }
    }
    const crowd = {};
    for (const [s, points, fig] of markers) {
      const i = points % 50;
      const k = crowd[i] = (crowd[i] || 0) + 1;
      const x = (i % 10) + 0.18 + ((k - 1) % 3) * 0.28;
      const y = Math.floor(i / 10) + 0.45 + Math.floor((k - 1) / 3) * 0.28;
      const shape = fig === "B"
        ? svgEl("rect", { x: x - 0.12, y: y - 0.12, width: 0.24, height: 0.24 })
        : svgEl("circle", { cx: x, cy: y, r: 0.13 });
      shape.setAttribute("fill", PLAYER_COLOURS[s]);
      shape.setAttribute("stroke", "#000");
      shape.setAttribute("stroke-width", 0.03);
      const laps = Math.floor(points / 50);
      const tip = svgEl("title");
      tip.textContent = `P${s}${fig ? " figure " + fig : ""}: ${points}` + (laps ? ` (${laps} x 50)` : "");
      shape.append(tip);
      svg.append(shape);
    }
    return svg;
  },
};
