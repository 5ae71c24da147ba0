"""What a ``tigris learn`` loop has made so far: its generations as a table (markdown) and
a picture, each network's Elo over the first one (``tigris learn OUT --report``).

>>> from tigris.runs import generations, learn
>>> rows = generations.rows(learn.read_generations("loops/2p"))      # doctest: +SKIP
>>> print(generations.markdown(rows))                                 # doctest: +SKIP

A gate measures a candidate against the current network only, so a network's Elo over
generation 0 adds up the gates along its line: the current network's, then the
candidate's own gate.  The interval of a sum is taken as if its gates were independent
(their half-widths added in quadrature): the same games never count twice.  With 3 and
4 players the Elo is the first-place Elo, what the gate counts.
"""

import math

from tigris._plumbing import plotting
from tigris.files import write_bytes

__all__ = ["rows", "markdown", "plot"]

CPU_HOUR = 3600.0


def _elo_of(gate):
    """A gate's Elo of the candidate over the current bot and its 95% interval, or None:
    the first-place Elo with 3 or 4 players, else the standings' Elo."""
    if gate.get("status") != "done":
        return None
    elo, ci = (gate.get("first_elo"), gate.get("first_elo_ci")) if "first_elo" in gate \
        else (gate.get("elo"), gate.get("elo_ci"))
    if elo is None or not ci or None in ci:
        return None
    return elo, max(elo - ci[0], ci[1] - elo)


def rows(lines):
    """A row per generation of `lines` (``learn.read_generations``): its stages' figures
    (``suite``: its policy's figure on the position suite, None before the loop judged
    one) and, per player count of its gates, the candidate's Elo over generation 0 (``over_0``,
    with the half-width ``over_0_pm`` of its 95% interval; None where a gate on the way
    gave no Elo or was not played)."""
    # The Elo over generation 0 of each promoted network, per player count: (elo, half-width squared).
    line_elo = {}
    out = []
    for line in lines:
        k, current = line["generation"], line["from"]
        row = {"generation": k, "from": current, "promoted": line["promoted"],
               "games": line["selfplay"].get("games"), "positions": line["selfplay"].get("positions"),
               "selfplay_cpu_hours": line["selfplay"].get("cpu_seconds", 0.0) / CPU_HOUR,
               "train_cpu_hours": line["train"].get("cpu_seconds", 0.0) / CPU_HOUR,
               "held_out_policy": line["train"].get("held_out_policy"),
               "held_out_top_move": line["train"].get("held_out_top_move"),
               "suite": line.get("suite"),
               "cpu_hours": line.get("cpu_seconds", 0.0) / CPU_HOUR,
               "wall_hours": line.get("wall_seconds", 0.0) / CPU_HOUR, "gates": {}}
        for players, gate in line["gate"].items():
            here = {"status": gate.get("status"), "decision": gate.get("decision"),
                    "games": gate.get("games"), "wins": gate.get("wins"), "draws": gate.get("draws"),
                    "losses": gate.get("losses"), "cpu_hours": gate.get("cpu_seconds", 0.0) / CPU_HOUR,
                    "elo": None, "pm": None, "over_0": None, "over_0_pm": None}
            measured = _elo_of(gate)
            base = line_elo.get(current, {}).get(players, (0.0, 0.0)) if current else (0.0, 0.0)
            if measured is not None:
                here["elo"], here["pm"] = measured
                if base is not None:
                    here["over_0"] = base[0] + measured[0]
                    here["over_0_pm"] = math.sqrt(base[1] + measured[1] ** 2)
            row["gates"][players] = here
        if line["promoted"]:
            line_elo[k] = {p: None if g["over_0"] is None else (g["over_0"], g["over_0_pm"] ** 2)
                           for p, g in row["gates"].items()}
        out.append(row)
    return out


def _figure(x, digits=0, sign=False):
    if x is None:
        return "-"
    return f"{x:+,.{digits}f}" if sign else f"{x:,.{digits}f}"


def _suite(suite):
    """The policy's figures on the position suite: its share right, of how many, and the
    share of its probability on the best moves."""
    if not suite:
        return "-"
    right, n = suite["policy_right"], suite["positions"]
    share = suite.get("policy_share")          # lines from before it was measured have none
    return f"{right / n:.1%} ({right} of {n})" + (f"; {share:.1f}% on the best" if share is not None else "")


def markdown(table):
    """The rows of ``rows`` as a markdown table: one row per generation and gate."""
    head = ("| gen | from | self-play games | positions | self-play CPU h | held-out policy (nats) | "
            "top move | suite, the policy alone | players | gate | games (+W =D -L) | Elo over current (95%) | "
            "Elo over gen 0 | CPU h | wall h | promoted |")
    lines = [head, "|" + "---:|" * 8 + "---:|---|---|---:|---:|---:|---:|---|"]
    for row in table:
        for i, (players, g) in enumerate(row["gates"].items()):
            first = i == 0
            gate = g["decision"] or "no decision" if g["status"] == "done" else g["status"]
            record = "-" if g["games"] is None else f"{g['games']} (+{g['wins']} ={g['draws']} -{g['losses']})"
            elo = "-" if g["elo"] is None else f"{g['elo']:+.0f} (+-{g['pm']:.0f})"
            over = "-" if g["over_0"] is None else f"{g['over_0']:+.0f} (+-{g['over_0_pm']:.0f})"
            stage = [str(row["generation"]), str(row["from"]), _figure(row["games"]), _figure(row["positions"]),
                     _figure(row["selfplay_cpu_hours"], 2), _figure(row["held_out_policy"], 3),
                     "-" if row["held_out_top_move"] is None else f"{row['held_out_top_move']:.1%}",
                     _suite(row["suite"])]
            cost = [_figure(row["cpu_hours"], 2), _figure(row["wall_hours"], 2), "yes" if row["promoted"] else "no"]
            lines.append("| " + " | ".join((stage if first else [""] * len(stage))
                                           + [players, gate, record, elo, over]
                                           + (cost if first else [""] * len(cost))) + " |")
    return "\n".join(lines)


def plot(table, path, title="Elo over generation 0, per generation"):
    """A picture of ``rows``'s table (needs matplotlib, the ``plot`` extra): each
    candidate's Elo over generation 0 with its 95% interval, per player count, promoted
    generations filled; PNG at `path`."""
    plt = plotting.pyplot("a picture of the generations needs matplotlib")
    fig, ax = plt.subplots(figsize=(6.5, 4.0))
    counts = sorted({p for row in table for p in row["gates"]})
    for n, players in enumerate(counts):
        points = [(row["generation"], row["gates"][players], row["promoted"]) for row in table
                  if players in row["gates"] and row["gates"][players]["over_0"] is not None]
        colour = f"C{n}"
        shift = (n - (len(counts) - 1) / 2) * 0.08          # side by side, not on top
        current = [0.0]                                      # the current network after each
        for k, g, promoted in points:
            current.append(g["over_0"] if promoted else current[-1])
        ax.plot([0] + [k + shift for k, g, promoted in points], current, color=colour, lw=1.5,
                drawstyle="steps-post", marker="s", markevery=[0], ms=4,
                label=f"{players} players: the current network")
        for k, g, promoted in points:
            ax.errorbar(k + shift, g["over_0"], yerr=g["over_0_pm"], color=colour, capsize=3,
                        marker="o", mfc=colour if promoted else "white", ls="none")
    ax.axhline(0, color="grey", lw=0.8, ls="--")
    low, high = ax.get_ylim()
    ax.set_ylim(low, high + 0.2 * (high - low))             # headroom: the legend above the whiskers
    ax.set_xlabel("generation (filled: promoted; open: refused at its gate)")
    ax.set_ylabel("Elo over generation 0 (95% interval)")
    plotting.whole_numbers(ax.xaxis)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    ax.set_title(title)
    fig.tight_layout()
    write_bytes(path, plotting.png(fig, dpi=110))
    return path
