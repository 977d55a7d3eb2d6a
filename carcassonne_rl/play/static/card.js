// Cardcassonne: the four rows, the player's hand, every decision of the rules.
"use strict";

const CardView = {
  selected: null, // a hand card name, "follower", or null

  titles: {}, // card notation -> what it is, for hover text and the legend

  render(p) {
    this.titles = p.card_titles || {};
    show("board", false);
    show("board-tools", false);
    const box = document.getElementById("cards");
    box.hidden = false;
    box.innerHTML = "";
    const legal = App.mode === "play" ? p.legal || [] : [];
    if (this.selected && !this.choicesFor(legal, this.selected).length) this.selected = null;
    const targets = this.rowTargets(p, legal);
    for (let r = 0; r < 4; r += 1) box.append(this.row(p, r, targets[r]));
    if (App.mode === "play") box.append(this.hand(p, legal));
    else box.append(this.allHands(p));
    this.drawSide(p, legal);
  },

  colourClass(name) {
    return "c-" + (["DR", "FA", "AJ", "BJ"].includes(name) ? "J" : name[0]);
  },

  card(name, attrs, small) {
    const div = el("div", attrs || {});
    div.classList.add("card");
    if (small) div.classList.add("small");
    if (name === null) {
      div.classList.add("back");
      return div;
    }
    div.classList.add(this.colourClass(name));
    div.append(el("span", { class: "band" }), el("span", {}, name));
    div.title = this.titles[name] ? `${name}: ${this.titles[name]}` : name;
    if (attrs && attrs.title) div.title = `${attrs.title} - ${div.title}`;
    return div;
  },

  meeple(player) {
    const svg = svgEl("svg", { width: 34, height: 40, viewBox: "0 0 1 1.15", class: "meeple" });
    svg.append(meeple(0.05, 0.1, 0.9, player, false));
    return svg;
  },

  choicesFor(legal, selected) {
    if (selected === "follower") return legal.filter((a) => a.verb === "follower");
    return legal.filter((a) => a.verb === "play" && a.card === selected);
  },

  // Per row, the legal action a click on that row makes (or null).
  rowTargets(p, legal) {
    const out = [null, null, null, null];
    if (p.phase === "setup_joker") {
      for (const a of legal) if (a.verb === "setup") out[a.row] = a;
    } else if (this.selected) {
      for (const a of this.choicesFor(legal, this.selected)) out[a.row] = a;
    }
    return out;
  },

  row(p, r, target) {
    const div = el("div", { class: `row row-${r}`, "data-row": r });
    const label = el("div", { class: "label" }, p.row_colours[r]);
    label.append(el("small", {}, p.row_names[r].split(" ")[1]));
    div.append(label);
    for (const entry of p.rows[r]) {
      if (entry.type === "follower") {
        div.append(this.meeple(entry.player));
        continue;
      }
      if (!entry.down) {
        div.append(this.card(entry.card));
        continue;
      }
      const attrs = { title: `face down, played by P${entry.owner}` };
      const node = this.card(entry.card, attrs);
      node.style.outline = `3px solid ${PLAYER_COLOURS[entry.owner]}`;
      if (entry.card === null) node.append(el("span", {}, `P${entry.owner}`));
      else node.classList.add("mine-down");
      div.append(node);
    }
    if (target) {
      div.classList.add("target");
      div.title = target.text;
      div.dataset.action = target.text;
    }
    div.addEventListener("click", () => this.clickRow(p, r, target));
    return div;
  },

  clickRow(p, r, target) {
    if (App.mode !== "play") return;
    if (target) {
      this.selected = null;
      return App.act(target.text);
    }
    if (p.is_over) return App.refuse("the game is over");
    if (!p.legal) return App.refuse(`wait: it is P${p.current_player}'s move`);
    if (p.phase === "turn" && !this.selected) {
      return App.refuse("pick a card from your hand (or your follower) first");
    }
    if (p.phase === "turn") {
      return App.refuse(`${this.selected} cannot go to row ${p.row_colours[r]} now`);
    }
    return App.refuse("choose one of the options on the right");
  },

  hand(p, legal) {
    const div = el("div", { id: "hand" });
    div.append(el("span", { class: "label" }, "your hand"));
    const cards = p.hands[String(p.seat)] || [];
    cards.forEach((name, i) => {
      const playable = this.choicesFor(legal, name).length > 0;
      const node = this.card(name, { class: "hand-card", "data-card": name, "data-i": i });
      if (playable) node.classList.add("playable");
      if (this.selected === name) node.classList.add("selected");
      node.addEventListener("click", () => {
        if (!App.myTurn()) return App.refuse("wait: it is not your move");
        if (!playable) return App.refuse(`${name} cannot be played now`);
        App.showMessage("");
        this.selected = this.selected === name ? null : name;
        App.render(App.payload);
      });
      div.append(node);
    });
    if (p.follower_row[p.seat] < 0) {
      const token = this.meeple(p.seat);
      token.classList.add("follower-token");
      token.setAttribute("data-card", "follower");
      if (this.selected === "follower") token.classList.add("selected");
      token.addEventListener("click", () => {
        if (!App.myTurn()) return App.refuse("wait: it is not your move");
        if (!this.choicesFor(legal, "follower").length) {
          return App.refuse("your follower cannot be placed now");
        }
        this.selected = this.selected === "follower" ? null : "follower";
        App.render(App.payload);
      });
      div.append(el("span", { class: "label" }, "  follower"), token);
    }
    return div;
  },

  allHands(p) {
    const div = el("div", { id: "hand", class: "spectator" });
    for (let s = 0; s < p.players; s += 1) {
      const line = el("div", { class: "spectator-hand" });
      line.append(el("span", { class: "label" }, `P${s} hand`));
      for (const name of p.hands[String(s)] || []) line.append(this.card(name, {}, true));
      div.append(line);
    }
    return div;
  },

  // What the card names mean (a closed <details> under the players table).
  legend() {
    const box = el("details", { class: "legend", id: "card-legend" });
    box.append(el("summary", {}, "card names"));
    const table = el("table");
    for (const [name, title] of Object.entries(this.titles)) {
      const row = el("tr");
      row.append(el("td", {}, name), el("td", {}, title));
      table.append(row);
    }
    box.append(table);
    return box;
  },

  drawSide(p, legal) {
    const prompt = document.getElementById("prompt");
    const choices = document.getElementById("choices");
    prompt.textContent = "";
    choices.innerHTML = "";
    if (legal.length) {
      if (p.phase === "setup_joker") {
        prompt.textContent = `Set-up: put the ${p.pending_card} joker on a highlighted row.`;
      } else if (p.phase === "turn") {
        const down = legal.some((a) => a.verb === "play" && a.down);
        prompt.textContent = this.selected
          ? `Click a highlighted row for ${this.selected}.`
          : `Pick a card to play ${down ? "face down" : "face up"}` +
            (legal.some((a) => a.verb === "follower") ? ", or your follower." : ".");
        for (const a of this.choicesFor(legal, this.selected)) {
          choices.append(App.button(a.text, () => App.act(a.text),
            { "data-action": a.text, class: "choice" }));
        }
      } else if (p.phase === "assign_animal_joker") {
        prompt.textContent = "Assign your animal joker to a species:";
        for (const a of legal) {
          choices.append(App.button(a.species, () => App.act(a.text),
            { "data-action": a.text, class: "choice" }));
        }
      } else if (p.phase === "misplaced_card") {
        prompt.textContent = `Misplaced ${p.pending_card}: keep it, or take 10 points?`;
        for (const a of legal) {
          choices.append(App.button(a.verb === "keep" ? "keep the card" : "10 points",
            () => App.act(a.text), { "data-action": a.text, class: "choice" }));
        }
      }
    }
    if (App.mode === "play" && p.allow_undo && !p.is_over) {
      choices.append(App.button("undo", () => App.undo(), { id: "btn-undo" }));
    }
    App.renderPlayers(p, {
      score: (s) => p.scores[s],
      hand: (s) => p.hand_sizes[s],
      follower: (s) => (p.follower_row[s] >= 0 ? p.row_colours[p.follower_row[s]] : "-"),
      animals: (s) => p.species.map((name, i) => (p.animals[s][i] ? `${p.animals[s][i]} ${name}` : ""))
        .filter(Boolean).join(", ") || "-",
    });
    const extra = document.getElementById("extra");
    extra.innerHTML = "";
    extra.append(el("div", {}, `round ${p.round} of ${p.rounds_total} - dealer P${p.dealer} - ` +
      `pile ${p.deck_size} cards`));
    for (let s = 0; s < p.players; s += 1) {
      if (!p.collected[s].length) continue;
      const line = el("div", { class: "spectator-hand" });
      line.append(el("span", {}, `P${s} keeps `));
      for (const name of p.collected[s]) line.append(this.card(name, {}, true));
      extra.append(line);
    }
    extra.append(this.legend());
    const claims = p.claims.map((c, s) => [s, c]).filter(([, c]) => c.length);
    if (claims.length) {
      extra.append(el("div", {}, "scoring this round (card by card):"));
      for (const [s, c] of claims) {
        const line = el("div", { class: "spectator-hand" });
        line.append(el("span", {}, `P${s} claims `));
        for (const [name, misplaced] of c) {
          const node = this.card(name, {}, true);
          if (misplaced) node.style.opacity = 0.6;
          line.append(node);
        }
        extra.append(line);
      }
    }
  },
};
