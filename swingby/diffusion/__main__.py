"""Command line of the diffusion experiments (paper Sec. 5):

    python -m swingby.diffusion sweep --preset cpu        # the Sec. 5 sweep (resumes if interrupted)
    python -m swingby.diffusion classifier --preset cpu   # train and store the concept classifier
    python -m swingby.diffusion search                    # the measured search for the cpu preset

Results go to ``results/diffusion`` of the checkout, or to ``--out`` / ``$SWINGBY_RESULTS``.
"""
from __future__ import annotations

import argparse
import sys


def _parser():
    from swingby.diffusion.presets import PRESETS
    from swingby.diffusion.search import CANDIDATES

    ap = argparse.ArgumentParser(prog="python -m swingby.diffusion", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sw = sub.add_parser("sweep", help="train, sample and evaluate a sweep (resumes if interrupted)")
    cl = sub.add_parser("classifier", help="train and store the concept classifier")
    se = sub.add_parser("search", help="train the search candidates on the decisive case")
    for s in (sw, cl):
        s.add_argument("--preset", required=True, help=f"one of {sorted(PRESETS)}")
        s.add_argument("--out", default=None, help="output directory (default results/diffusion)")
    sw.add_argument("--seeds", type=int, nargs="+", default=None)
    sw.add_argument("--separations", type=float, nargs="+", default=None,
                    help="colour separations dc in [0, 1]")
    sw.add_argument("--scratch", default=None, help="resumable run states (not committed)")
    sw.add_argument("--device", default="cpu", help="cpu (default), cuda or auto")
    sw.add_argument("--no-progress", action="store_true")
    se.add_argument("--only", nargs="+", default=None, help=f"some of {[c[0] for c in CANDIDATES]}")
    return ap


def main(argv=None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    from pathlib import Path

    from swingby.diffusion import search as Q
    from swingby.diffusion import sweep as S
    from swingby.diffusion.presets import get_preset

    try:
        if args.cmd == "search":
            for name in args.only or [c[0] for c in Q.CANDIDATES]:
                print(name, Q.run_candidate(name))
            print(Q.table(Q.summarise()))
            return 0
        p = get_preset(args.preset)
        if args.cmd == "classifier":
            out = Path(args.out) if args.out else S.results_dir(for_writing=True)
            _, report = S.get_classifier(p, out, progress=True)
            print(f"min held-out accuracy {report['min_accuracy']:.4f}")
            return 0
        path = S.sweep(p, seeds=args.seeds, separations=args.separations, out_dir=args.out,
                       scratch=args.scratch, progress=not args.no_progress, device=args.device)
    except (ValueError, TypeError, FloatingPointError) as e:
        ap.error(str(e))
    print(f"results: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
