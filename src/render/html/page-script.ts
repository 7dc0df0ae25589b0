/**
 * The report page's only script: table sorting and filtering, and the transcript viewer, which
 * builds a trial's view from the embedded JSON when it is opened. It writes text with
 * `textContent` only, never markup, so agent output cannot become HTML. Kept as plain ES2017 in a
 * string so the page needs no build step; the CSP allows exactly this script by its hash.
 */
import { PORTABLE_FORMATTERS } from "../format.js";

/**
 * The server's own number formatters, by source, so the viewer prints figures exactly as the rest
 * of the report does. Each is declared under the name it has in this build (a bundler may rename
 * a function, and its callers with it), then bound to the name the script uses.
 */
export const EMBEDDED_FORMATTERS = [
  ...Object.values(PORTABLE_FORMATTERS).map((f) => f.toString()),
  ...Object.entries(PORTABLE_FORMATTERS)
    .filter(([alias, f]) => alias !== f.name)
    .map(([alias, f]) => `var ${alias} = ${f.name};`),
].join("\n");

export const PAGE_SCRIPT = String.raw`(function () {
  "use strict";
${EMBEDDED_FORMATTERS}
  var data = null;
  function loadData() {
    if (data === null) {
      var node = document.getElementById("report-data");
      data = JSON.parse(node ? node.textContent : "{\"trials\":[]}");
    }
    return data;
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function add(parent, child) {
    parent.appendChild(child);
    return child;
  }
  function countLines(text) {
    if (!text) return 0;
    var n = text.split("\n").length;
    return text.charAt(text.length - 1) === "\n" ? n - 1 : n;
  }

  // ---- sorting ---------------------------------------------------------------------------
  function cellValue(row, index, numeric) {
    var cell = row.cells[index];
    if (!cell) return null;
    var raw = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent;
    if (raw === null || raw === "") return null;
    if (!numeric) return raw.toLowerCase();
    var n = Number(raw);
    return Number.isFinite(n) ? n : null;
  }
  function sortTable(table, th) {
    var headers = Array.prototype.slice.call(th.parentNode.children);
    var index = headers.indexOf(th);
    var numeric = th.getAttribute("data-type") === "num";
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    headers.forEach(function (h) {
      h.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var keyed = rows.map(function (row, i) {
      return { row: row, v: cellValue(row, index, numeric), i: i };
    });
    keyed.sort(function (a, b) {
      // Empty values ("–", nothing measured) stay at the bottom in both directions.
      if (a.v === null || b.v === null) return a.v === null ? (b.v === null ? a.i - b.i : 1) : -1;
      var c = a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
      return c === 0 ? a.i - b.i : ascending ? c : -c;
    });
    var fragment = document.createDocumentFragment();
    keyed.forEach(function (k) {
      fragment.appendChild(k.row);
    });
    body.appendChild(fragment);
  }

  // ---- filtering the scenario table ------------------------------------------------------
  function applyFilter() {
    var input = document.getElementById("scenario-filter");
    var failingOnly = document.getElementById("failing-only");
    var table = document.getElementById("scenario-table");
    if (!input || !table) return;
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var onlyFailing = failingOnly && failingOnly.checked;
    var shown = 0;
    var rows = table.tBodies[0].rows;
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      var text = row.getAttribute("data-search") || "";
      var ok = words.every(function (w) {
        return text.indexOf(w) !== -1;
      });
      if (onlyFailing && row.getAttribute("data-failing") !== "1") ok = false;
      row.hidden = !ok;
      if (ok) shown++;
    }
    var status = document.getElementById("scenario-count");
    if (status) status.textContent = shown + " of " + rows.length + " scenarios shown";
  }

  // ---- transcript viewer -----------------------------------------------------------------
  function output(parent, label, text, open) {
    if (!text) return;
    var details = add(parent, el("details", "output " + label));
    if (open) details.open = true;
    add(details, el("summary", null, label + " · " + countLines(text) + " line" + (countLines(text) === 1 ? "" : "s")));
    add(details, el("pre", null, text));
  }
  function exitBadge(code) {
    if (code === null || code === undefined) return el("span", "exit none", "no result");
    return el("span", "exit " + (code === 0 ? "ok" : "bad"), "exit " + code);
  }
  function gateLabel(g) {
    return g.description ? g.gate_type + " — " + g.description : g.gate_type;
  }

  function renderProblems(body, t) {
    var failed = t.gates.filter(function (g) {
      return !g.passed;
    });
    if (failed.length > 0) {
      var box = add(body, el("section", "problems"));
      add(box, el("h3", null, "Failed gates (" + failed.length + " of " + t.gates.length + ")"));
      var list = add(box, el("ul", "failed-gates"));
      failed.forEach(function (g) {
        var item = add(list, el("li"));
        add(item, el("strong", null, gateLabel(g)));
        add(item, el("pre", "gate-message", g.message));
      });
    }
    if (t.judge) {
      var j = add(body, el("section", t.judge.issues.length > 0 ? "problems judge" : "judge"));
      add(
        j,
        el(
          "h3",
          null,
          "Judge: score " + formatNumber(t.judge.score) + ", confidence " + formatNumber(t.judge.confidence) +
            (t.judge.model ? " (" + t.judge.model + ")" : ""),
        ),
      );
      if (t.judge.issues.length > 0) {
        add(j, el("h4", null, "Issues"));
        var issues = add(j, el("ul", "judge-issues"));
        t.judge.issues.forEach(function (issue) {
          add(issues, el("li", null, issue));
        });
      }
      if (t.judge.highlights.length > 0) {
        add(j, el("h4", null, "Highlights"));
        var highlights = add(j, el("ul", "judge-highlights"));
        t.judge.highlights.forEach(function (h) {
          add(highlights, el("li", null, h));
        });
      }
      var names = Object.keys(t.judge.scores);
      if (names.length > 0) {
        add(j, el("p", "muted", names.map(function (n) {
          return n + " " + formatNumber(t.judge.scores[n]);
        }).join(" · ")));
      }
    }
  }

  function renderGates(body, t) {
    if (t.gates.length === 0) return;
    var details = add(body, el("details", "all-gates"));
    add(details, el("summary", null, "All gates (" + t.figures.gates_passed + "/" + t.figures.gates_total + " passed)"));
    var table = add(details, el("table", "gates"));
    t.gates.forEach(function (g) {
      var row = add(table, el("tr", g.passed ? "pass" : "fail"));
      add(row, el("td", null, g.passed ? "✓" : "✗"));
      add(row, el("td", null, gateLabel(g)));
      add(row, el("td", null, "weight " + formatNumber(g.weight)));
      add(add(row, el("td")), el("pre", "gate-message", g.message));
    });
  }

  function renderStep(list, step) {
    var item;
    if (step.kind === "turn") {
      item = add(list, el("li", "step turn"));
      add(
        item,
        el(
          "div",
          "step-head",
          "Turn " + step.turn + " · " + formatTokens(step.input_tokens) + " in / " + formatTokens(step.output_tokens) + " out · " +
            formatDuration(step.duration_ms) + " · stop: " + (step.stop_reason || "none"),
        ),
      );
      if (step.text) add(item, el("div", "model-text", step.text));
    } else if (step.kind === "command" || step.kind === "setup") {
      item = add(list, el("li", "step command" + (step.kind === "setup" ? " setup" : "")));
      var head = add(item, el("div", "cmd-head"));
      add(head, el("code", "cmd-line", (step.kind === "setup" ? "setup $ " : "$ ") + step.command));
      add(head, exitBadge(step.exit_code));
      if (step.duration_ms !== null) add(head, el("span", "muted", formatDuration(step.duration_ms)));
      if (step.timed_out) add(head, el("span", "flag", "timed out"));
      if (step.truncated) add(head, el("span", "flag", "output truncated"));
      if (!step.stdout && !step.stderr) add(item, el("div", "muted no-output", "no output"));
      output(item, "stdout", step.stdout, false);
      output(item, "stderr", step.stderr, false);
    } else if (step.kind === "model_error") {
      item = add(list, el("li", "step warn"));
      item.textContent =
        "Model call failed (turn " + step.turn + ", attempt " + step.attempt +
        (step.status ? ", HTTP " + step.status : "") + "): " + step.message +
        (step.will_retry ? " — retrying" : "");
    } else if (step.kind === "agent_output") {
      item = add(list, el("li", "step agent-output"));
      output(item, "agent output", step.text, false);
    } else if (step.kind === "end") {
      item = add(list, el("li", "step end"));
      item.textContent =
        "Ended: " + step.reason + " after " + step.turns + " turn(s), " + formatDuration(step.duration_ms) +
        (step.error ? ". Error: " + step.error : "");
    }
  }

  function renderTrial(index) {
    var t = loadData().trials[index];
    if (!t) return null;
    var body = el("div", "viewer-content");
    var title = add(body, el("h2", null, t.scenario + " — trial #" + t.trial + " "));
    add(title, el("span", "badge " + t.outcome, t.outcome));
    add(body, el("p", "muted", "category " + t.category));
    if (t.reason) add(body, el("p", "reason", t.reason));
    if (t.replay) add(body, el("p", "replay", "Replay: " + t.replay));
    (t.shim_disagreements || []).forEach(function (message) {
      add(body, el("p", "reason", "Shim records disagree with the tool calls: " + message));
    });
    if ((t.command_pattern_misses || []).length > 0) {
      add(
        body,
        el(
          "p",
          "muted",
          "Counted, but target.command_pattern does not match them (subcommand from the arguments): " +
            t.command_pattern_misses.join("; "),
        ),
      );
    }
    var f = t.figures;
    add(
      body,
      el(
        "p",
        "facts",
        "ended by " + (t.end_reason || "unknown") + " · " + f.turns + " turn(s) · " + f.tool_calls +
          " tool call(s), " + f.tool_calls_error + " failed · " + f.commands + " target command(s), " +
          f.command_errors + " failed (source: " + t.invocation_source + ") · gates " + f.gates_passed + "/" +
          f.gates_total + " · score " + formatNumber(f.score) + "/" + formatNumber(f.max_score) + " · " +
          formatDuration(f.duration_ms) + " · " + formatTokens(f.input_tokens) + " in / " + formatTokens(f.output_tokens) + " out tokens · " +
          formatUsd(f.cost_usd),
      ),
    );
    renderProblems(body, t);
    renderGates(body, t);

    var timelineHead = add(body, el("div", "timeline-head"));
    add(timelineHead, el("h3", null, "Transcript"));
    if (t.timeline === null) {
      add(
        body,
        el(
          "p",
          "muted missing-events",
          "The events of this trial are not in this file" +
            (t.events_path ? " (" + t.events_path + " was not found next to the report)" : "") + ".",
        ),
      );
    } else {
      var toggle = add(timelineHead, el("button", "expand-all", "Expand all outputs"));
      toggle.type = "button";
      var list = add(body, el("ol", "timeline"));
      t.timeline.forEach(function (step) {
        renderStep(list, step);
      });
      toggle.addEventListener("click", function () {
        var open = toggle.textContent === "Expand all outputs";
        list.querySelectorAll("details").forEach(function (d) {
          d.open = open;
        });
        toggle.textContent = open ? "Collapse all outputs" : "Expand all outputs";
      });
    }
    if (t.invocations.length > 0) {
      var inv = add(body, el("details", "invocations"));
      add(inv, el("summary", null, "Target invocations (" + t.invocations.length + ")"));
      var table = add(inv, el("table", "gates"));
      t.invocations.forEach(function (v, i) {
        var row = add(table, el("tr", v.exit_code === 0 ? "pass" : "fail"));
        add(row, el("td", null, String(i + 1)));
        add(add(row, el("td")), el("code", null, v.argv.join(" ")));
        add(row, el("td", null, "exit " + v.exit_code));
        add(row, el("td", null, formatDuration(v.duration_ms)));
      });
    }
    if (t.events_path || t.transcript_path) {
      add(
        body,
        el(
          "p",
          "muted paths",
          [t.transcript_path ? "transcript: " + t.transcript_path : "", t.events_path ? "events: " + t.events_path : ""]
            .filter(Boolean)
            .join(" · "),
        ),
      );
    }
    return body;
  }

  function openTrial(index) {
    var dialog = document.getElementById("trial-viewer");
    var holder = document.getElementById("viewer-body");
    var content = renderTrial(index);
    if (!dialog || !holder || !content) return;
    holder.replaceChildren(content);
    dialog.setAttribute("data-current", String(index));
    if (!dialog.open) dialog.showModal();
    holder.scrollTop = 0;
    if (location.hash !== "#trial-" + index) location.hash = "trial-" + index;
  }
  function closeTrial() {
    var dialog = document.getElementById("trial-viewer");
    if (dialog && dialog.open) dialog.close();
  }
  function openFromHash() {
    var m = /^#trial-(\d+)$/.exec(location.hash);
    if (m) openTrial(Number(m[1]));
  }

  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    var trigger = target.closest("[data-trial]");
    if (trigger) {
      event.preventDefault();
      openTrial(Number(trigger.getAttribute("data-trial")));
      return;
    }
    var header = target.closest("table.sortable th[data-type]");
    if (header) sortTable(header.closest("table"), header);
  });
  // Sortable headers are focusable: Enter or Space sorts, as a click does.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" && event.key !== " ") return;
    var target = event.target instanceof Element ? event.target : null;
    var header = target && target.matches("table.sortable th[data-type]") ? target : null;
    if (!header) return;
    event.preventDefault();
    sortTable(header.closest("table"), header);
  });
  var closeButton = document.getElementById("viewer-close");
  if (closeButton) closeButton.addEventListener("click", closeTrial);
  var dialog = document.getElementById("trial-viewer");
  if (dialog) {
    dialog.addEventListener("close", function () {
      if (!/^#trial-/.test(location.hash)) return;
      try {
        history.replaceState(null, "", location.pathname + location.search);
      } catch (error) {
        // Some browsers refuse history changes on file:// pages; the stale hash is harmless.
      }
    });
    // A click on the backdrop (outside the panel) closes the viewer.
    dialog.addEventListener("click", function (event) {
      if (event.target === dialog) closeTrial();
    });
  }
  var filter = document.getElementById("scenario-filter");
  if (filter) filter.addEventListener("input", applyFilter);
  var failingOnly = document.getElementById("failing-only");
  if (failingOnly) failingOnly.addEventListener("change", applyFilter);
  window.addEventListener("hashchange", openFromHash);
  document.documentElement.classList.add("js");
  openFromHash();
})();
`;
