/** The report page's stylesheet: system fonts only (no web fonts, nothing to fetch), light and dark. */
export const PAGE_STYLE = `
:root {
  --bg: #ffffff; --fg: #1f2328; --muted: #656d76; --line: #d0d7de; --panel: #f6f8fa;
  --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #cf222e; --fail-bg: #ffebe9;
  --error: #9a6700; --error-bg: #fff8c5; --skip: #6e7781; --skip-bg: #eaeef2;
  --accent: #0969da; --whisker: #57606a;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #8d96a0; --line: #30363d; --panel: #161b22;
    --pass: #3fb950; --pass-bg: #12261e; --fail: #f85149; --fail-bg: #2d1214;
    --error: #d29922; --error-bg: #2e2410; --skip: #8d96a0; --skip-bg: #21262d;
    --accent: #4493f8; --whisker: #8d96a0;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1400px; margin: 0 auto; padding: 20px 24px 60px; }
h1 { font-size: 22px; margin: 0 0 4px; display: flex; align-items: center; gap: 10px; }
h2 { font-size: 18px; margin: 32px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 16px 0 8px; }
h4 { font-size: 13px; margin: 10px 0 4px; }
code, pre, .cmd-line { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }
pre { white-space: pre-wrap; word-break: break-word; margin: 0; }
.muted { color: var(--muted); }
.meta { color: var(--muted); margin: 0 0 14px; }
.kicker { color: var(--muted); margin: 0 0 4px; }
.design { margin: 0 0 8px; }
.banner { border: 1px solid var(--error); background: var(--error-bg); padding: 8px 12px; border-radius: 6px; margin: 10px 0; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600;
  text-transform: uppercase; letter-spacing: .02em; vertical-align: middle; white-space: nowrap; }
.badge.pass { color: var(--pass); background: var(--pass-bg); }
.badge.fail, .badge.flaky { color: var(--fail); background: var(--fail-bg); }
.badge.error { color: var(--error); background: var(--error-bg); }
.badge.skipped { color: var(--skip); background: var(--skip-bg); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(175px, 1fr)); gap: 10px; margin: 12px 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; background: var(--panel); }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
.card .value { font-size: 22px; font-weight: 600; margin: 2px 0; }
.card .sub { color: var(--muted); font-size: 12px; }
.card.bad .value { color: var(--fail); }
.card.good .value { color: var(--pass); }
.card.warn .value { color: var(--error); }
.table-wrap { overflow-x: auto; border: 1px solid var(--line); border-radius: 8px; }
table { border-collapse: collapse; width: 100%; }
th, td { padding: 5px 7px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
thead th { background: var(--panel); position: sticky; top: 0; z-index: 1; font-size: 12.5px; white-space: nowrap; }
th[data-type] { cursor: pointer; user-select: none; }
th[data-type]:hover { color: var(--accent); }
th[aria-sort="ascending"]::after { content: " ▲"; font-size: 10px; }
th[aria-sort="descending"]::after { content: " ▼"; font-size: 10px; }
tbody tr:hover { background: var(--panel); }
tr[hidden] { display: none; }
.scenario-id { font-weight: 600; word-break: break-word; }
td:first-child { min-width: 160px; max-width: 320px; }
.description { color: var(--muted); font-size: 12px; }
.ci { color: var(--muted); font-size: 12px; }
.chips { display: flex; flex-wrap: wrap; gap: 3px; min-width: 90px; max-width: 190px; }
.chips.inline { display: inline-flex; max-width: none; vertical-align: middle; margin-left: 6px; }
button.chip { border: 1px solid transparent; border-radius: 4px; min-width: 26px; padding: 0 5px; font: inherit;
  font-size: 12px; cursor: pointer; }
button.chip.pass { color: var(--pass); background: var(--pass-bg); }
button.chip.fail { color: var(--fail); background: var(--fail-bg); }
button.chip.error { color: var(--error); background: var(--error-bg); }
button.chip.skipped { color: var(--skip); background: var(--skip-bg); }
button.chip:hover, button.chip:focus-visible { border-color: var(--accent); }
.controls { display: flex; gap: 14px; align-items: center; margin: 8px 0; flex-wrap: wrap; }
.controls input[type="search"] { padding: 5px 8px; border: 1px solid var(--line); border-radius: 6px;
  background: var(--bg); color: var(--fg); min-width: 260px; font: inherit; }
.chart-scroll { max-height: 560px; overflow-y: auto; border: 1px solid var(--line); border-radius: 8px; padding: 6px; }
svg.chart { display: block; width: 100%; height: auto; max-width: 1000px; }
svg.chart text { fill: var(--fg); font-size: 12px; font-family: inherit; }
svg.chart text.muted-text { fill: var(--muted); font-size: 11px; }
svg.chart .grid { stroke: var(--line); stroke-width: 1; }
svg.chart .zero { stroke: var(--muted); stroke-width: 1.5; }
svg.chart .whisker { stroke: var(--whisker); stroke-width: 2; }
svg.chart .dot { stroke: var(--bg); stroke-width: 1; }
svg.chart .pass { fill: var(--pass); }
svg.chart .fail { fill: var(--fail); }
svg.chart .mid { fill: var(--error); }
svg.chart .none { fill: var(--skip); }
svg.chart .improved { fill: var(--pass); }
svg.chart .regressed { fill: var(--fail); }
svg.chart .unchanged, svg.chart .too_few_samples { fill: var(--skip); }
svg.chart .inconclusive { fill: var(--error); }
svg.chart line.improved { stroke: var(--pass); }
svg.chart line.regressed { stroke: var(--fail); }
svg.mini { width: 120px; height: 16px; vertical-align: middle; }
.legend { color: var(--muted); font-size: 12px; margin: 4px 0 8px; }
.verdict-regressed, .status-bad { color: var(--fail); font-weight: 600; }
.verdict-improved, .status-good { color: var(--pass); font-weight: 600; }
.verdict-inconclusive { color: var(--error); }
ul.failures { list-style: none; padding: 0; margin: 0; }
ul.failures li { padding: 6px 0; border-bottom: 1px solid var(--line); }
ul.failures .why { color: var(--fg); }
ul.failures .gate-names { color: var(--muted); font-size: 12.5px; }
dialog#trial-viewer { width: min(1100px, 96vw); max-height: 92vh; padding: 0; border: 1px solid var(--line);
  border-radius: 10px; background: var(--bg); color: var(--fg); }
dialog#trial-viewer::backdrop { background: rgba(0, 0, 0, .45); }
.viewer-bar { position: sticky; top: 0; display: flex; justify-content: flex-end; padding: 6px 10px;
  background: var(--panel); border-bottom: 1px solid var(--line); z-index: 2; }
#viewer-body { padding: 4px 20px 20px; }
.viewer-content h2 { border: none; margin-top: 10px; }
.reason { font-weight: 600; }
.facts { color: var(--muted); font-size: 12.5px; }
section.problems { border: 1px solid var(--fail); background: var(--fail-bg); border-radius: 8px; padding: 4px 14px 10px; margin: 10px 0; }
section.judge { border: 1px solid var(--line); background: var(--panel); border-radius: 8px; padding: 4px 14px 10px; margin: 10px 0; }
ul.failed-gates { padding-left: 18px; }
.gate-message { color: var(--fg); font-size: 12px; }
table.gates td { font-size: 12.5px; }
table.gates tr.fail td:first-child { color: var(--fail); }
table.gates tr.pass td:first-child { color: var(--pass); }
.timeline-head { display: flex; align-items: center; gap: 12px; }
button.expand-all, #viewer-close { font: inherit; font-size: 12.5px; padding: 3px 10px; border-radius: 6px;
  border: 1px solid var(--line); background: var(--bg); color: var(--fg); cursor: pointer; }
ol.timeline { list-style: none; padding: 0; margin: 0; }
.step { padding: 6px 10px; margin: 6px 0; border-left: 3px solid var(--line); }
.step.turn { border-left-color: var(--accent); }
.step.command { border-left-color: var(--whisker); background: var(--panel); border-radius: 0 6px 6px 0; }
.step.warn { border-left-color: var(--error); background: var(--error-bg); }
.step.end { border-left-color: var(--muted); color: var(--muted); }
.step-head { color: var(--muted); font-size: 12px; }
.model-text { white-space: pre-wrap; margin-top: 3px; }
.cmd-head { display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
.cmd-line { white-space: pre-wrap; word-break: break-word; font-weight: 600; }
.exit { font-size: 12px; font-weight: 600; padding: 0 6px; border-radius: 4px; }
.exit.ok { color: var(--pass); background: var(--pass-bg); }
.exit.bad { color: var(--fail); background: var(--fail-bg); }
.exit.none { color: var(--skip); background: var(--skip-bg); }
.flag { font-size: 12px; color: var(--error); }
details.output { margin-top: 4px; }
details.output summary { cursor: pointer; color: var(--muted); font-size: 12px; }
details.output pre { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px;
  max-height: 420px; overflow: auto; }
details.output.stderr pre { border-color: var(--fail); }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
`;
