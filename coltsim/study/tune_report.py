"""The report of a balance search (coltsim.study.tune): Markdown, one figure and the tables;
and :func:`tune_file`, the ``coltsim tune FILE`` command (the search, then the report).

:func:`write_tune_report` writes, into the output folder::

    report.md                 the answer first, then the tables and the method
    figures/tune.png          the objective against the value, with intervals; games per value
    tables/tune.csv           one row per value (objective, interval, games, status)
    tables/win_rates.csv      every bandit's win rate per value and setting
    tables/play.csv           whether the players reacted: shots and loot against the reference
    tables/rounds.csv         the search round by round
    tune.toml                 the tune file as it was run (when known)
    manifest.json             the versions and engine hash that played the games, and the search

It writes only these files, all at once (coltsim.study.folder: each whole or not at all, the
manifest last), the tables at 6 significant digits; a folder holding other files keeps them.
``coltsim tune`` writes into a folder only if it is new, empty or holds a report of the same
search (its name, option, values, objective, settings and seed, with as many games or fewer);
``--replace`` replaces another.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import StrMethodFormatter

from ..rules import Rules
from ..runs.runner import manifest_header
from ..words import bandit_label, plural
from .folder import ReportFiles, owner_of, report_folder
from .tune import REPS, TuneResult, load_tune, policies_text, run_search, value_text

DPI = 150
COLOURS = {"best": "#d1495b", "in the running": "#3f88c5", "dropped": "0.6"}


def objective_text(result: TuneResult) -> str:
    """What was minimised, in words."""
    s = result.search
    if s.objective.kind == "spread":
        return "spread between the strongest and the weakest bandit's win rate"
    target = ("fair share (1/players)" if s.target == "fair"
              else f"target of {100 * s.objective.targets[0]:.1f}%")
    return f"distance of {bandit_label(s.objective.bandit)}'s win rate from its {target}"


def _points(x: float) -> str:
    return f"{100 * x:.1f}"


def _signed(x: float) -> str:
    return f"{100 * x:+.1f}"


def _values_numeric(result: TuneResult) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool)
               for v in result.search.values)


# --- the figure ---------------------------------------------------------------------------------
def plot_objective(ax, result: TuneResult) -> dict:
    """The objective (points) against the value, with intervals; one thin line per setting."""
    t = result.table
    x = _x(result)
    artists = {"settings": [], "values": []}
    for name, style in zip(result.setting_names, ("--", ":", "-.", (0, (1, 4)))):
        artists["settings"] += ax.plot(x, 100 * t[name].to_numpy(np.float64), linestyle=style,
                                       color="0.45", linewidth=1, label=name)
    for status, colour in COLOURS.items():
        hit = (t["status"] == status).to_numpy()
        if not hit.any():
            continue
        y = 100 * t["objective"].to_numpy(np.float64)[hit]
        err = np.vstack([y - 100 * t["lo"].to_numpy(np.float64)[hit],
                         100 * t["hi"].to_numpy(np.float64)[hit] - y])
        artists["values"].append(ax.errorbar(
            x[hit], y, yerr=err, fmt="*" if status == "best" else "o", color=colour,
            markersize=12 if status == "best" else 6, capsize=3,
            markerfacecolor="white" if status == "dropped" else colour, label=status))
    ax.set_ylabel(f"{'spread' if result.search.objective.kind == 'spread' else 'distance'} "
                  "(percentage points)")
    ax.set_ylim(bottom=0)
    ax.set_title(objective_text(result), fontsize=10)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    _x_axis(ax, result)
    return artists


def plot_games(ax, result: TuneResult) -> list:
    """Games per setting given to each value (the sequential design at work)."""
    t = result.table
    bars = ax.bar(_x(result), t["games"], width=_bar_width(result),
                  color=[COLOURS[s] for s in t["status"]])
    ax.set_ylabel("games per setting")
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    _x_axis(ax, result)
    ax.set_xlabel(result.search.option)
    return list(bars)


def _x(result: TuneResult) -> np.ndarray:
    if _values_numeric(result):
        return np.array(result.search.values, np.float64)
    return np.arange(len(result.search.values), dtype=np.float64)


def _bar_width(result: TuneResult) -> float:
    x = _x(result)
    return 0.6 * (np.diff(np.sort(x)).min() if len(x) > 1 else 1.0)


def _x_axis(ax, result: TuneResult) -> None:
    if not _values_numeric(result):
        ax.set_xticks(_x(result), [value_text(v) for v in result.search.values], rotation=30,
                      ha="right", fontsize=8)


def draw(result: TuneResult) -> Figure:
    fig = Figure(figsize=(8, 5.5), layout="constrained")
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(3, 1))
    plot_objective(top, result)
    plot_games(bottom, result)
    return fig


# --- the report ---------------------------------------------------------------------------------
def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def _contenders(result: TuneResult) -> str:
    s = result.search
    left = [value_text(v) for v in result.contenders]
    if len(left) == 1:
        return (f"Every other value was dropped as worse beyond doubt, so {s.option} = "
                f"{left[0]} is the best of the values tried.")
    return (f"The values still in the running when the search stopped could each be the best: "
            f"{', '.join(left)} (the others were worse beyond doubt).")


def headline(result: TuneResult) -> str:
    """The answer, in one paragraph."""
    s, e = result.search, result.best_estimate
    names = result.setting_names
    over = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    text = (f"**{s.option} = {value_text(result.best)}** gives the smallest "
            f"{objective_text(result)}: {_points(e.estimate)} points (95% CI {_points(e.lo)} "
            f"to {_points(e.hi)}), {'in' if len(names) == 1 else 'averaged over'} {over}. "
            f"{_contenders(result)}")
    if _values_numeric(result) and result.best in (min(s.values), max(s.values)):
        beyond = result.best - 1 if result.best == min(s.values) else result.best + 1
        if _allowed(s.option, beyond):
            text += (" The best value is at the end of the range tried: the objective may "
                     "keep falling beyond it.")
        else:
            text += f" It is the {'least' if beyond < result.best else 'most'} the rule allows."
    return text


def _allowed(option: str, value) -> bool:
    try:
        Rules(**{option: value})
    except ValueError:
        return False
    return True


def markdown(result: TuneResult, name: str, description: str = "") -> str:
    s = result.search
    t = result.table
    names = result.setting_names
    fixed = sum(s.max_games for _ in s.values) * len(s.settings)
    reference = value_text(result.reference)
    printed = value_text(getattr(Rules(), s.option))
    lines = [f"# coltsim tune: {name}", ""]
    if description:
        lines += [description, ""]
    lines += [headline(result), ""]
    lines += [
        f"- **Policy**: {policies_text(s.settings)}.",
        f"- **Settings**: {', '.join(names)} (line-up: "
        f"{', '.join(dict.fromkeys(x.lineup_text for x in s.settings))}).",
        f"- **Values tried**: {s.option} = {', '.join(value_text(v) for v in s.values)} "
        f"(the printed rules: {printed}).",
        f"- **Games**: {result.games:,} in all, in {plural(len(result.rounds), 'round')}: the "
        f"search stopped because {result.stopped}. Giving every value {s.max_games:,} games per setting "
        f"would have played {fixed:,}.",
        f"- **Runtime**: {result.seconds:.0f} s (simulation and analysis; shared machine, "
        f"timings are noisy). Seed {result.seed}.",
        "",
    ]
    if result.warning:
        lines += [f"> **Warning.** {result.warning}", ""]
    lines += ["![The objective against the value](figures/tune.png)", "",
              "*Top: the objective at each value (bias-corrected, with its 95% interval); "
              "the thin lines are each setting's own objective. Bottom: the "
              "games per setting each value received.*", ""]

    lines += ["## The objective at every value", ""]
    rows = []
    for _, r in t.iterrows():
        status = r["status"] if r["status"] != "dropped" else \
            f"dropped after {int(r['dropped_after']):,} games"
        versus = "-" if r["status"] == "best" else \
            f"{_signed(r['vs_best'])} ({_signed(r['vs_best_lo'])} to {_signed(r['vs_best_hi'])})"
        rows.append([r["value"], f"{int(r['games']):,}", _points(r["objective"]),
                     f"{_points(r['lo'])} to {_points(r['hi'])}", versus]
                    + [_points(r[n]) for n in names] + [status])
    lines += _table([s.option, "games per setting", "objective (points)", "95% CI",
                     "minus the best, same deals (95% CI)"]
                    + [f"{n} (points)" for n in names] + ["status"], rows)
    lines += ["", "Two values' intervals can overlap while their difference is clear: they were "
                  "played on the same deals, so the difference is measured deal by deal (the "
                  "column *minus the best*), which is what a value is dropped on."]
    lines += ["", "Full table: `tables/tune.csv`; win rates of every bandit at every value: "
                  "`tables/win_rates.csv`.", ""]

    lines += ["## Did the players react to the rule?", "",
              f"On the first round's deals (every value played them), each value against "
              f"{s.option} = {reference}: the share of deals where any bandit's shots, loot or "
              f"bullets received differed, and the change of the mean per bandit (95% "
              f"intervals over deals).", ""]
    rows = []
    for _, r in result.play.iterrows():
        rows.append([r["value"], f"{100 * r['deals_changed']:.0f}%",
                     f"{r['mean_shots']:.2f}",
                     _change(r, "shots", "{:+.2f}"), f"${r['mean_loot']:,.0f}",
                     _change(r, "loot", "{:+,.0f}", dollars=True)])
    lines += _table([s.option, "deals where play changed", "shots per bandit", "change",
                     "loot per bandit", "change"], rows)
    lines += [""]

    best = value_text(result.best)
    lines += [f"## Win rates at {s.option} = {best}", ""]
    rates = result.rates[result.rates["value"] == best]
    rows = []
    for bandit in dict.fromkeys(rates["bandit"]):
        cells = [bandit_label(bandit)]
        for n in names:
            hit = rates[(rates["bandit"] == bandit) & (rates["setting"] == n)]
            cells.append("" if hit.empty else
                         f"{100 * hit['win_rate'].iloc[0]:.1f}% ({100 * hit['lo'].iloc[0]:.1f} "
                         f"to {100 * hit['hi'].iloc[0]:.1f})")
        rows.append(cells)
    lines += _table(["bandit"] + names, rows) + [""]

    lines += ["## The search, round by round", ""]
    rows = [[str(r["round"]), f"{r['games_per_value']:,}", str(r["values"]), f"{r['games']:,}",
             r["best"], r["dropped"] or "-"] for _, r in result.rounds.iterrows()]
    lines += _table(["round", "games per setting and value", "values", "games played",
                     "best so far", "dropped"], rows) + [""]

    lines += ["## Method", "", method(result), ""]
    return "\n".join(lines)


def _change(r, name: str, fmt: str, dollars: bool = False) -> str:
    def f(x):
        text = fmt.format(x)
        return text.replace("+", "+$").replace("-", "-$") if dollars else text

    if r[f"{name}_change"] == 0 and r[f"{name}_lo"] == 0 and r[f"{name}_hi"] == 0:
        return "none"
    return f"{f(r[f'{name}_change'])} ({f(r[f'{name}_lo'])} to {f(r[f'{name}_hi'])})"


def method(result: TuneResult) -> str:
    s = result.search
    return (
        f"Every value of {s.option} was played on the same deals (common random numbers: round "
        f"r plays deals 0 to n-1 of a master seed derived from the seed and r, the same for "
        f"every value), so values are compared deal by deal. The first round gave every value "
        f"{s.games:,} games per setting; each later round doubled the games of the values still "
        f"in the running, up to {s.max_games:,} (successive elimination). The objective of a "
        f"value is the {objective_text(result)}, per setting, averaged over the settings; win "
        f"rates count a victory shared by m players as 1/m. Its uncertainty comes from a "
        f"bootstrap over deals ({REPS} replicates of Poisson weights, one per deal), "
        f"the same weights for every value (a paired bootstrap). A maximum minus a minimum, or "
        f"a distance, of noisy rates leans high, so estimates and intervals are corrected by "
        f"the bias the bootstrap measures. After each round a value was dropped when its "
        f"difference from the best value, less {result.z:.2f} bootstrap standard errors, was "
        f"still above zero; {result.z:.2f} is the one-sided normal quantile for "
        f"{100 * (1 - s.level):.0f}% spread over every comparison the search could make "
        f"(Bonferroni), so the best value is dropped with probability at most about "
        f"{100 * (1 - s.level):.0f}%. The search stops when one value is left, when the values "
        f"left are all within {100 * s.tolerance:.1f} points of the best (by the same margin), "
        f"or at {s.max_games:,} games per setting and value. Whether the players reacted is "
        f"measured on the first round's deals, which every value played.")


def search_record(search, seed: int) -> dict:
    """What a search's manifest records of what it plays and how many games it may spend."""
    s = search
    return json.loads(json.dumps({
        "option": s.option, "values": [value_text(v) for v in s.values],
        "objective": s.objective.kind, "bandit": s.objective.bandit, "target": s.target,
        "settings": [x.as_dict() for x in s.settings], "seed": seed, "games": s.games,
        "max_games": s.max_games}))


def write_tune_report(result: TuneResult, out_dir, name: str | None = None,
                      description: str = "", text: str = "", dpi: int = DPI) -> Path:
    """Write the report of ``result`` into ``out_dir`` (see the module docstring), all files at
    once (coltsim.study.folder.ReportFiles); returns the path of ``report.md``."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} exists and is not a folder")
    files = ReportFiles(out)
    files.figure("tune", draw(result), dpi)
    for stem, table in (("tune", result.table), ("win_rates", result.rates),
                        ("play", result.play), ("rounds", result.rounds)):
        files.table(stem, table)
    if text:
        files.add("tune.toml", text)
    manifest = {**manifest_header(), **({"experiment": name} if name else {}), "tune": {
        **search_record(result.search, result.seed), "games_played": result.games,
        "best": value_text(result.best)}}
    files.add("manifest.json", json.dumps(manifest, indent=1) + "\n")
    files.add("report.md", markdown(result, name or out.name, description))
    files.write()
    return out / "report.md"


def tune_file(path, games: int | None = None, max_games: int | None = None,
              workers: int | None = None, out=None, quiet: bool = False,
              replace: bool = False) -> TuneResult:
    """``coltsim tune FILE``: run the search of a tune file and write its report (in the file's
    ``output``, default ``reports/NAME``, or ``out``).  ``games``, ``max_games`` and ``workers``
    override the file's.  The output folder must be new, empty or hold a report of the same
    search with as many games or fewer (coltsim.study.folder); ``replace`` removes another
    report (and its data) from it first."""
    spec = load_tune(path, games=games, max_games=max_games)
    e = spec.experiment.with_overrides(output=out, workers=workers)

    def log(line):
        print(line, file=sys.stderr)

    owner = owner_of({"experiment": e.name, "tune": search_record(spec.search, e.seed)})
    with report_folder(Path(e.output), owner, replace):
        result = run_search(spec.search, seed=e.seed, workers=e.workers, backend=e.backend,
                            progress=not quiet, log=None if quiet else log)
        write_tune_report(result, e.output, name=e.name, description=e.description,
                          text=e.text)
    if not quiet:
        log(f"report: {Path(e.output) / 'report.md'}")
    return result
