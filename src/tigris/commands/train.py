"""tigris train: a learned evaluation fitted to self-play data (needs the train extra)."""

from tigris.commands.options import POSITIVE, add_command, add_force, add_seed, whole

__all__ = ["DESCRIPTION", "add_to", "run"]


DESCRIPTION = """\
Fit the learned evaluation (tigris.network) to the labelled positions of self-play folders
(tigris selfplay) with PyTorch on the CPU, the value and, where the data has the search's
visits, the policy together: whole games held out, training stopped when the held-out loss
stops improving. OUT gets network.npz (the best epoch, with its data,
losses and held-out calibration in its metadata), log.jsonl (the losses of each epoch) and
checkpoint.pt; the same command again continues a stopped run (even one killed) to the
network an uninterrupted run makes. A bot uses the network with
evaluator = "net" and network = "OUT/network.npz" (and priors = "net" for its policy). Needs PyTorch: pip install 'tigris-euphrates[train]'.
"""


def _fraction(text):
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not 0 <= value <= 1:
        import argparse

        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, not {text!r}")
    return value


def add_to(sub):
    from tigris.runs.train import EPOCHS, HIDDEN, LABEL_WEIGHT, MAX_EPOCHS, PATIENCE, POLICY_WIDTH

    p = add_command(sub, "train", run, help="a learned evaluation fitted to self-play data",
                    description=DESCRIPTION)
    p.add_argument("data", nargs="+", metavar="DIR", help="self-play folders (tigris selfplay --out)")
    p.add_argument("--out", required=True, metavar="DIR", help="the network's folder, continued if it exists")
    p.add_argument("--hidden", type=whole(1, 1024), nargs=2, default=list(HIDDEN), metavar=("H1", "H2"),
                   help=f"the hidden layers' widths (default {HIDDEN[0]} {HIDDEN[1]})")
    p.add_argument("--label-weight", type=_fraction, default=LABEL_WEIGHT,
                   help=f"the game result's share of a position's target, the search's the rest "
                        f"(default {LABEL_WEIGHT})")
    p.add_argument("--result-every", type=whole(0, 1000), default=0, metavar="K",
                   help="also every K-th other decision of each game, its target the result alone "
                        "(default 0: none)")
    p.add_argument("--epochs", type=whole(1, MAX_EPOCHS), default=EPOCHS,
                   help=f"at most this many epochs (default {EPOCHS})")
    p.add_argument("--policy-width", type=whole(0, 1024), default=None, metavar="W",
                   help=f"the policy's context width; 0: no policy head (default {POLICY_WIDTH} when the "
                        f"data has the policy's labels, else 0)")
    p.add_argument("--init", metavar="NETWORK",
                   help="start from this weights file (its widths; a next generation starts from the last)")
    p.add_argument("--freeze-value", action="store_true",
                   help="keep the value's weights as --init gives them and train the policy head alone: "
                        "the network judges positions exactly as that file does")
    p.add_argument("--patience", type=POSITIVE, default=PATIENCE,
                   help=f"stop after this many epochs without a better held-out loss (default {PATIENCE})")
    p.add_argument("--plot", metavar="PNG", help="also draw the held-out reliability diagram (needs matplotlib)")
    add_force(p, "the --plot file")
    add_seed(p, "seed of the split and the initial weights")


def run(args):
    """tigris train: encode the folders' positions, fit, export."""
    from tigris.runs import train

    train.require_torch()                       # before the positions are encoded
    if args.plot:
        from tigris._plumbing import plotting

        plotting.pyplot("--plot needs matplotlib")
    train.check_out(args.out, [*train.data_files(args.data), *([args.init] if args.init else [])], args.plot)
    if args.plot:
        from tigris.files import check_new

        check_new(args.plot, "--plot", args.force, in_folder=False)
    data = train.dataset(args.data, label_weight=args.label_weight, result_every=args.result_every,
                         progress=True)
    print(f"{len(data):,} positions from {sum(s['games'] for s in data.sources):,} games")
    meta = train.fit(data, args.out, hidden=tuple(args.hidden), epochs=args.epochs, patience=args.patience,
                     seed=args.seed, policy_width=args.policy_width, init=args.init,
                     freeze_value=args.freeze_value)
    if args.plot:
        train.plot(meta, args.plot)
    ece = ", ".join(f"{n} players {c['ece']:.3f}" for n, c in meta["calibration"].items())
    print(f"{args.out}/network.npz: epoch {meta['best_epoch']} of {meta['epochs']}, held-out loss "
          f"{meta['held_out_loss']:.4f}; calibration error of the mover's chance: {ece}")
