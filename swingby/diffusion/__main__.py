"""Command line: ``python -m swingby.diffusion sweep --preset cpu`` (Sec. 5 sweep),
``python -m swingby.diffusion classifier --preset cpu`` (train and store the classifier)."""
from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    from swingby.diffusion.presets import PRESETS

    ap = argparse.ArgumentParser(prog="python -m swingby.diffusion", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sw = sub.add_parser("sweep", help="train, sample and evaluate a sweep (resumes if interrupted)")
    for s in (sw, sub.add_parser("classifier", help="train and store the concept classifier")):
        s.add_argument("--preset", required=True, help=f"one of {sorted(PRESETS)}")
        s.add_argument("--out", default=None, help="output directory (default results/diffusion)")
    sw.add_argument("--seeds", type=int, nargs="+", default=None)
    sw.add_argument("--separations", type=float, nargs="+", default=None,
                    help="colour separations dc in [0, 1]")
    sw.add_argument("--scratch", default=None, help="resumable run states (not committed)")
    sw.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    from swingby.diffusion import sweep as S
    from swingby.diffusion.presets import get_preset

    try:
        p = get_preset(args.preset)
        if args.cmd == "classifier":
            from pathlib import Path
            _, report = S.get_classifier(p, Path(args.out) if args.out else S.DEFAULT_OUT, progress=True)
            print(f"min held-out accuracy {report['min_accuracy']:.4f}")
            return 0
        path = S.sweep(p.name, seeds=args.seeds, separations=args.separations, out_dir=args.out,
                       scratch=args.scratch, progress=not args.no_progress)
    except ValueError as e:
        ap.error(str(e))
    print(f"results: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
