/* rulepress: step through a worked example, and try a move from any step (rulepress/render/stepper.py).
 *
 * The page holds the example's frames as a hidden list (one <li> a step: its diagram's number, its text alternative,
 * what the step did, a refusal, the checkpoints' captions), the diagrams packed (data-frames: every piece of SVG
 * once, each diagram the runs of pieces it is made of, gzipped, in base64; stepper.py's pack_frames) and, where the
 * book lets readers try moves, where the in-browser referee's files are.  Everything a book says is put on the page
 * with textContent, never as markup; a diagram is shown as an image (a blob: URL), which runs nothing.
 *
 * Trying a move loads Pyodide (vendored in the site, never fetched from the network) when a reader first asks.
 * Browsers do not run WebAssembly modules from file://, so there the page says the site must be served.
 *
 * Links: "#step-5" opens the first step-through of the page at its fifth step (as "Step 5 of 9" counts), and
 * "#step-5/try/3/as:Ben/auto" opens a try there and plays its line again (the referee's keys, one a move).
 */
(function () {
  "use strict";

  // What the benchmarks read (benchmarks/browser.py): milliseconds to Pyodide, to the referee, and each move.
  var timings = (window.rulepressTimings = window.rulepressTimings || { pyodide: null, ready: null, moves: [] });
  var engines = {}; // bundle URL -> Promise of the referee (one Pyodide per page)
  var pyodide = null;

  function fill(template, values) {
    return String(template).replace(/\{(\w+)\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole;
    });
  }

  function element(tag, className, text) {
    var made = document.createElement(tag);
    if (className) made.className = className;
    if (text !== undefined && text !== null) made.textContent = text;
    return made;
  }

  function readJSON(text, fallback) {
    try {
      return text ? JSON.parse(text) : fallback;
    } catch (error) {
      return fallback;
    }
  }

  function readFrames(list) {
    return Array.prototype.map.call(list.children, function (item) {
      function text(selector) {
        var found = item.querySelector(selector);
        return found ? found.textContent : "";
      }
      return {
        drawn: Number(item.getAttribute("data-frame") || 0),
        rule: item.getAttribute("data-rule") || "",
        opens: item.hasAttribute("data-opens") ? Number(item.getAttribute("data-opens")) : null,
        player: item.getAttribute("data-player") || null,
        seat: item.getAttribute("data-seat") || null,
        said: text(".rp-said"),
        refused: text(".rp-refused"),
        alt: text(".rp-alt"),
        moment: text(".rp-moment"),
        notes: Array.prototype.map.call(item.querySelectorAll(".rp-note"), function (note) {
          return note.textContent;
        }),
      };
    });
  }

  function Stepper(root) {
    this.root = root;
    this.words = readJSON(root.getAttribute("data-words"), {});
    this.referee = readJSON(root.getAttribute("data-referee"), null);
    this.frames = readFrames(root.querySelector(".rp-frames"));
    this.index = 0;
    this.urls = [];
    this.build();
    this.show(0, false);
    var self = this;
    unpack(root.getAttribute("data-frames") || "").then(function (svgs) {
      self.urls = svgs.map(function (svg) { return URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" })); });
      self.image.src = self.urls[self.frames[self.index].drawn] || "";
    });
  }

  // The diagrams of a pack (stepper.py's pack_frames), each rebuilt from its runs of pieces.
  function unpack(encoded) {
    var bytes = Uint8Array.from(atob(encoded), function (c) { return c.charCodeAt(0); });
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(function (text) {
      var pack = JSON.parse(text);
      return pack.frames.map(function (runs) {
        var parts = [];
        for (var i = 0; i < runs.length; i += 2) parts.push(pack.pieces.slice(runs[i], runs[i] + runs[i + 1]).join(""));
        return parts.join("");
      });
    });
  }

  var LINK = /^#step-(\d+)(?:\/try(?:\/(.*))?)?$/;

  Stepper.prototype.link = function (path) {
    return "#step-" + (this.index + 1) + (path === undefined ? "" : "/try" + (path ? "/" + path : ""));
  };

  // The page's address follows the first step-through (a link to it opens where the reader is).
  Stepper.prototype.remember = function (path) {
    if (this.owner && window.history.replaceState) window.history.replaceState(null, "", this.link(path));
  };

  Stepper.prototype.follow = function (hash) {
    var found = LINK.exec(decodeURIComponent(hash || ""));
    if (!found || Number(found[1]) < 1 || Number(found[1]) > this.frames.length) return;
    this.show(Number(found[1]) - 1, false);
    this.root.scrollIntoView();
    if (found[0].indexOf("/try") >= 0 && this.tryButton && !this.tryButton.disabled) this.openTry(found[2] || "");
  };

  Stepper.prototype.build = function () {
    var self = this;
    var words = this.words;
    var view = element("div", "rp-view");
    var figure = element("figure", "rp-figure");
    figure.tabIndex = 0;  // it scrolls sideways on a narrow screen (stepper.css): the keyboard reaches it
    this.image = element("img", "rp-frame");
    this.image.decoding = "async";
    figure.appendChild(this.image);
    this.notes = element("figcaption", "rp-notes");
    figure.appendChild(this.notes);
    view.appendChild(figure);
    this.count = element("p", "rp-count");
    view.appendChild(this.count);
    this.narration = element("p", "rp-narration");
    this.narration.setAttribute("aria-live", "polite");
    view.appendChild(this.narration);
    var controls = element("div", "rp-controls");
    this.previous = element("button", "md-button rp-previous", "← " + (words.stepper_previous || "Previous"));
    this.next = element("button", "md-button rp-next", (words.stepper_next || "Next") + " →");
    this.previous.type = this.next.type = "button";
    this.previous.addEventListener("click", function () { self.show(self.index - 1, true); });
    this.next.addEventListener("click", function () { self.show(self.index + 1, true); });
    controls.appendChild(this.previous);
    controls.appendChild(this.next);
    this.stepLink = element("a", "rp-link", words.stepper_link || "");
    controls.appendChild(this.stepLink);
    view.appendChild(controls);
    view.appendChild(element("p", "rp-keys", words.stepper_keys || ""));
    this.root.addEventListener("keydown", function (event) {
      var target = event.target;
      if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) return;
      if (!self.view.contains(target)) return;
      if (event.key === "ArrowLeft") { self.show(self.index - 1, true); event.preventDefault(); }
      if (event.key === "ArrowRight") { self.show(self.index + 1, true); event.preventDefault(); }
    });
    this.view = view;
    this.root.appendChild(view);
    if (this.referee) {
      this.tryButton = element("button", "md-button rp-try-open", words.try_move || "Try a move");
      this.tryButton.type = "button";
      this.tryButton.addEventListener("click", function () { self.openTry(); });
      controls.appendChild(this.tryButton);
      this.panel = element("div", "rp-try");
      this.panel.hidden = true;
      this.root.appendChild(this.panel);
    }
  };

  Stepper.prototype.show = function (index, announce) {
    if (index < 0 || index >= this.frames.length) return;
    this.index = index;
    var frame = this.frames[index];
    var words = this.words;
    if (this.urls.length) this.image.src = this.urls[frame.drawn];  // else once the pack is unpacked
    this.image.alt = frame.alt || "";
    // The moment the frame shows ("After step 3"), as the printed captions lead with it, then the checkpoints' captions.
    this.notes.textContent = "";
    if (frame.moment) this.notes.appendChild(element("strong", "rp-moment", frame.moment));
    var notes = frame.notes.join(" ");
    if (notes) this.notes.appendChild(document.createTextNode((frame.moment ? ": " : "") + notes));
    this.notes.hidden = !frame.moment && !frame.notes.length;
    this.count.textContent = fill(words.stepper_position || "{n} / {total}", { n: index + 1, total: this.frames.length });
    this.narration.textContent = "";
    var said = element("span", "rp-said", frame.said);
    this.narration.appendChild(said);
    if (frame.refused) {
      this.narration.appendChild(document.createTextNode(" "));
      var refusal = element(frame.rule ? "a" : "span", "rp-refused", frame.refused);
      if (frame.rule) refusal.href = frame.rule;
      this.narration.appendChild(refusal);
    }
    this.narration.setAttribute("aria-live", announce ? "polite" : "off");
    var focused = document.activeElement;
    this.previous.disabled = index === 0;
    this.next.disabled = index === this.frames.length - 1;
    // A button disabled under the keyboard's focus would drop it to the page: it moves to the other one.
    if (focused === this.previous && this.previous.disabled && !this.next.disabled) this.next.focus();
    if (focused === this.next && this.next.disabled && !this.previous.disabled) this.previous.focus();
    this.root.setAttribute("data-rp-step", String(index));
    this.stepLink.href = this.link();
    if (announce) this.remember();
    if (this.tryButton) {
      this.tryButton.disabled = frame.opens === null;
      this.tryButton.title = frame.opens === null ? words.try_unavailable || "" : "";
      if (!this.panel.hidden) this.closeTry();
    }
  };

  // --- trying a move --------------------------------------------------------------------------------------------

  Stepper.prototype.message = function (text) {
    this.panel.textContent = "";
    var said = element("p", "rp-try-message", text);
    said.setAttribute("role", "status");
    this.panel.appendChild(said);
    this.panel.hidden = false;
  };

  Stepper.prototype.openTry = function (line) {
    var self = this;
    var frame = this.frames[this.index];
    if (frame.opens === null) return;
    if (window.location.protocol === "file:") {
      this.message(this.words.try_served || "");
      return;
    }
    this.message(this.words.try_loading || "…");
    var started = performance.now();
    referee(this.referee)
      .then(function (engine) {
        if (timings.ready === null) timings.ready = performance.now() - started;
        return positions(self.referee).then(function (kept) {
          var answer = JSON.parse(engine.open(JSON.stringify({
            options: kept.options, position: kept.positions[frame.opens], player: frame.player, seat: frame.seat,
          })));
          self.engine = engine;
          self.picked = [];
          if (line && answer.ok !== false) answer = JSON.parse(engine.follow(line));
          self.render(answer);
        });
      })
      .catch(function (error) {
        self.message(fill(self.words.try_failed || "{error}", { error: String(error && error.message || error) }));
      });
  };

  Stepper.prototype.closeTry = function () {
    this.panel.hidden = true;
    this.panel.textContent = "";
    this.tryButton.focus();
  };

  // The moves using every place clicked so far (their numbers in the list).
  function using(shown, picked) {
    var found = [];
    shown.moves.forEach(function (move, index) {
      var places = move.places || [];
      if (picked.every(function (place) { return places.indexOf(place) >= 0; })) found.push(index);
    });
    return found;
  }

  // A click on the board: the smallest place under it that a move uses, added to those clicked before (a card,
  // then the tile it goes on); one move left is played, several are listed alone.
  Stepper.prototype.pick = function (event, image) {
    var shown = this.moves;
    var places = (shown && shown.places) || {};
    var box = image.getBoundingClientRect();
    var x = (event.clientX - box.left) / box.width * this.board.width;
    var y = (event.clientY - box.top) / box.height * this.board.height;
    var found = null;
    Object.keys(places).forEach(function (name) {
      var b = places[name];
      var inside = x >= b[0] && x <= b[0] + b[2] && y >= b[1] && y <= b[1] + b[3];
      if (inside && (!found || b[2] * b[3] < places[found][2] * places[found][3])) found = name;
    });
    if (!found) return;
    var picked = this.picked.concat([found]);
    if (!using(shown, picked).length) picked = [found];
    var chosen = using(shown, picked);
    if (chosen.length === 1) {
      var self = this;
      this.call(function () { return self.engine.play(chosen[0]); });
      return;
    }
    this.picked = picked;
    this.render(this.answer);
  };

  Stepper.prototype.call = function (run) {
    this.picked = [];
    var started = performance.now();
    var answer = JSON.parse(run());
    timings.moves.push(performance.now() - started);
    this.render(answer);
  };

  function button(className, text, run) {
    var made = element("button", className, text);
    made.type = "button";
    made.addEventListener("click", run);
    return made;
  }

  Stepper.prototype.render = function (answer) {
    var self = this;
    var words = this.words;
    var panel = this.panel;
    panel.textContent = "";
    panel.hidden = false;
    function engine(name, argument) {
      return function () {
        self.call(function () { return argument === undefined ? self.engine[name]() : self.engine[name](argument); });
      };
    }
    var result = element("div", "rp-try-result");
    result.setAttribute("aria-live", "polite");
    if (answer.svg !== undefined && (!this.board || this.board.svg !== answer.svg)) {
      if (this.board) URL.revokeObjectURL(this.board.url);
      var size = /viewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(answer.svg) || [0, 1, 1];
      this.board = { svg: answer.svg, url: URL.createObjectURL(new Blob([answer.svg], { type: "image/svg+xml" })),
                     width: Number(size[1]), height: Number(size[2]) };
    }
    if (answer.svg !== undefined) this.board.alt = answer.alt || "";
    if (this.board) {
      var figure = element("figure", "rp-figure");
      figure.tabIndex = 0;
      var image = element("img", "rp-frame rp-try-board");
      image.src = this.board.url;
      image.alt = this.board.alt;
      image.addEventListener("click", function (event) { self.pick(event, image); });
      figure.appendChild(image);
      result.appendChild(figure);
    }
    if (answer.svg !== undefined && answer.narration) {
      result.appendChild(element("p", "rp-try-played", (words.try_played || "") + " " + answer.narration));
    }
    (answer.dealt || []).forEach(function (said) { result.appendChild(element("p", "rp-try-dealt", said)); });
    if (answer.ok === false) {
      var refusal = element("p", "rp-try-refusal");
      if (answer.rule) {
        var cited = element(answer.rule.link ? "a" : "strong", "rp-try-rule",
          fill(words.try_refused || "{number}", { number: answer.rule.number, title: answer.rule.title }));
        if (answer.rule.link) cited.href = answer.rule.link;
        refusal.appendChild(cited);
        refusal.appendChild(document.createTextNode(": " + (answer.words ? answer.words + ". " : "") + answer.message));
      } else {
        refusal.textContent = answer.message;
      }
      result.appendChild(refusal);
    }
    panel.appendChild(result);
    if (answer.moves) this.moves = answer;
    this.answer = answer;
    var shown = this.moves || { moves: [], more: 0, depth: 0, line: [], ahead: 0 };
    var only = this.picked.length ? using(shown, this.picked) : null;
    if (shown.player) panel.appendChild(element("p", "rp-try-seat", fill(words.try_seat || "", { player: shown.player })));
    if (shown.turn) {
      // Another seat is to move: the reader takes it (what it cannot see dealt again) or the engine plays it.
      var turn = element("div", "rp-try-turn");
      turn.appendChild(element("p", "rp-try-turn-said", fill(words.try_turn || "", { player: shown.turn })));
      var choices = element("div", "rp-controls");
      choices.appendChild(button("md-button rp-try-take-seat", fill(words.try_take_seat || "", { player: shown.turn }),
        engine("take_seat")));
      choices.appendChild(button("md-button rp-try-auto", fill(words.try_auto || "", { player: shown.turn }),
        engine("auto")));
      turn.appendChild(choices);
      panel.appendChild(turn);
    }
    var heading = element("h3", "rp-try-heading", words.try_moves || "");
    heading.id = "rp-try-heading-" + Math.random().toString(36).slice(2);
    panel.appendChild(heading);
    if (!shown.moves.length && !shown.turn) panel.appendChild(element("p", "rp-try-none", words.try_none || ""));
    var list = element("ul", "rp-try-moves");
    list.setAttribute("aria-labelledby", heading.id);
    if (Object.keys(shown.places || {}).length) panel.appendChild(element("p", "rp-try-hint", words.try_board || ""));
    if (only) panel.appendChild(element("p", "rp-try-picked", fill(words.try_picked || "", { count: only.length })));
    shown.moves.forEach(function (move, index) {
      if (only && only.indexOf(index) < 0) return;
      var item = element("li");
      item.appendChild(button("rp-try-move", move.words, engine("play", index)));
      list.appendChild(item);
    });
    panel.appendChild(list);
    if (shown.more) panel.appendChild(element("p", "rp-try-more", fill(words.try_more || "", { count: shown.more })));
    var form = element("form", "rp-try-form");
    var label = element("label", "rp-try-label", words.try_write || "");
    var input = element("input", "rp-try-input");
    input.type = "text";
    input.id = heading.id + "-input";
    input.spellcheck = false;
    input.autocomplete = "off";
    input.placeholder = shown.moves.length ? shown.moves[0].step : "";
    label.htmlFor = input.id;
    var submit = element("button", "md-button rp-try-submit", words.try_submit || "");
    submit.type = "submit";
    form.appendChild(label);
    form.appendChild(input);
    form.appendChild(submit);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var text = input.value;
      self.call(function () { return self.engine.judge(text); });
    });
    panel.appendChild(form);
    if ((shown.line || []).length || shown.ahead) {
      // The line tried so far, as a chess viewer lists it: each entry goes back (or forward) to it.
      panel.appendChild(element("h3", "rp-try-line-heading", words.try_line || ""));
      var line = element("ol", "rp-try-line");
      shown.line.forEach(function (said, index) {
        var entry = element("li");
        var go = button("rp-try-entry", said, engine("go", index + 1));
        if (index + 1 === shown.depth) go.setAttribute("aria-current", "step");
        if (index + 1 > shown.depth) entry.className = "rp-try-ahead";
        entry.appendChild(go);
        line.appendChild(entry);
      });
      panel.appendChild(line);
    }
    var buttons = element("div", "rp-controls");
    if (shown.depth > 0) buttons.appendChild(button("md-button rp-try-undo", words.try_undo || "", engine("back")));
    if (shown.ahead > 0) buttons.appendChild(button("md-button rp-try-redo", words.try_redo || "", engine("forward")));
    buttons.appendChild(button("md-button rp-try-close", words.try_close || "", function () { self.closeTry(); }));
    if (shown.path !== null && shown.path !== undefined) {
      var link = element("a", "rp-try-link", words.try_link || "");
      link.href = this.link(shown.path);
      buttons.appendChild(link);
      this.remember(shown.path);
    }
    panel.appendChild(buttons);
  };

  // --- the engine: Pyodide, the bundle, the referee ---------------------------------------------------------------

  function fetched(url, kind) {
    return fetch(url, { credentials: "same-origin" }).then(function (response) {
      if (!response.ok) throw new Error(url + ": " + response.status);
      return kind === "json" ? response.json() : response.arrayBuffer();
    });
  }

  function positions(settings) {
    if (!settings.kept) {
      settings.kept = unpacked(settings.positions.replace(/\.gz$/, ""), "application/json").then(function (response) {
        return response.json();
      }).catch(function (error) {
        settings.kept = null;
        throw error;
      });
    }
    return settings.kept;
  }

  // Pyodide's interpreter and the examples' positions are in the site gzipped ("<name>.gz", in_browser.py): unpacked
  // here as they arrive.  A host that already decoded one (Content-Encoding) hands over the plain file, taken as it is.
  function unpacked(url, type) {
    return fetched(url + ".gz").then(function (buffer) {
      var bytes = new Uint8Array(buffer);
      var body = bytes[0] === 0x1f && bytes[1] === 0x8b
        ? new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")) : bytes;
      return new Response(body, { headers: { "Content-Type": type } });
    });
  }

  function start(base) {
    if (!pyodide) {
      var started = performance.now();
      var index = new URL(base, document.baseURI).href;
      var wasm = new URL("pyodide.asm.wasm", index).href;
      var interpreter = unpacked(new URL("pyodide.asm.mjs", index).href, "text/javascript")
        .then(function (response) { return response.blob(); })
        .then(function (script) { return import(URL.createObjectURL(script)); });
      pyodide = Promise.all([import(new URL("pyodide.mjs", index).href), interpreter]).then(function (modules) {
        // The loader fetches the interpreter's WebAssembly itself: while it starts, that one request is answered
        // with the unpacked file (compiled as it streams), every other goes through as it is.
        var plain = window.fetch;
        window.fetch = function (resource) {
          var url = resource instanceof Request ? resource.url : String(resource);
          return url === wasm ? unpacked(wasm, "application/wasm") : plain.apply(this, arguments);
        };
        var loading = modules[0].loadPyodide({ indexURL: index, packages: [], createPyodideModule: modules[1].default });
        return loading.finally(function () { window.fetch = plain; });
      }).then(function (py) {
        timings.pyodide = performance.now() - started;
        return py;
      }, function (error) {
        pyodide = null; // the next ask starts again (a preload that failed is not the reader's last word)
        throw error;
      });
    }
    return pyodide;
  }

  function referee(settings) {
    var bundle = new URL(settings.bundle, document.baseURI).href;
    if (!engines[bundle]) {
      engines[bundle] = Promise.all([start(settings.pyodide), fetched(bundle), fetched(settings.config, "json")])
        .then(function (loaded) {
          var py = loaded[0];
          var folder = "/home/pyodide/rulepress-" + Object.keys(engines).indexOf(bundle);
          py.unpackArchive(new Uint8Array(loaded[1]), "zip", { extractDir: folder });
          py.globals.set("rp_folder", folder);
          py.globals.set("rp_config", JSON.stringify(loaded[2]));
          py.runPython(
            "import json, sys\n" +
            "if rp_folder not in sys.path:\n    sys.path.insert(0, rp_folder)\n" +
            "from rulepress.render.browser.referee import Referee\n" +
            "rp_referee = Referee(json.loads(rp_config), rp_folder)\n");
          return py.globals.get("rp_referee");
        })
        .catch(function (error) {
          delete engines[bundle];
          throw error;
        });
    }
    return engines[bundle];
  }

  // Once the page is idle, the first step-through's referee starts (Pyodide, the bundle, the positions), so that
  // "Try a move" finds it ready; not from file:// (where it cannot run) nor when the reader asked to save data.
  function preload(settings) {
    var connection = navigator.connection;
    if (window.location.protocol === "file:" || (connection && connection.saveData)) return;
    var later = window.requestIdleCallback || function (run) { return window.setTimeout(run, 200); };
    later(function () {
      referee(settings).then(function () { return positions(settings); }).catch(function () {
        // said when the reader asks: openTry starts again and shows what went wrong
      });
    });
  }

  function ready() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-rp-stepper]"), function (root, number) {
      if (root.rpStepper) return;
      root.rpStepper = new Stepper(root);
      if (number === 0) {
        root.rpStepper.owner = true;
        root.rpStepper.follow(window.location.hash);
        window.addEventListener("hashchange", function () { root.rpStepper.follow(window.location.hash); });
        if (root.rpStepper.referee) preload(root.rpStepper.referee);
      }
    });
  }

  // scan: a block added to the page later (the tests add other books'); pyodide: Pyodide alone, as a page starts it
  // (benchmarks/browser.py's reference).
  window.rulepressStepper = { scan: ready, pyodide: start };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
