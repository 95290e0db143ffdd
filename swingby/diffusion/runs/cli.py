"""Command line of the diffusion experiments (paper Sec. 5)::

    python -m swingby.diffusion sweep --preset cpu        # the Sec. 5 sweep (resumes if interrupted)
    python -m swingby.diffusion classifier --preset cpu   # train and store the concept classifier
    python -m swingby.diffusion search                    # the first measured search for the cpu preset
    python -m swingby.diffusion position-search           # the search on the authors' random positions
    python -m swingby.diffusion position-search --new-sweep   # the new cpu sweep it chose
    python -m swingby.diffusion precision-check           # does bf16 autocast keep a run's outcome?
    python -m swingby.diffusion long-search               # the position search finished at 4800 steps
    python -m swingby.diffusion long-search --sweep       # the confirmatory sweep it chose

Executors of a sweep (--executor): pool (the default: a pool of local worker processes, the
preset's `workers`; with --device cuda they share the one GPU), submitit-local (every run a
separate submitit job on this machine) and slurm (every run a task of a SLURM job array,
requeued on preemption or time-out; needs `pip install 'swingby[cluster]'`)::

    python -m swingby.diffusion sweep --preset paper --executor slurm --scratch /cluster/scratch/swingby \\
        --partition gpu --time 4:00:00 --gpus-per-job 1 --cpus-per-job 4 --device auto
    python -m swingby.diffusion sweep --preset paper --collect --scratch /cluster/scratch/swingby

Results go to ``results/diffusion`` of the checkout, or to ``--out`` / ``$SWINGBY_RESULTS``.
"""
from __future__ import annotations

import argparse
import json
import sys


def _parser():
    from swingby.diffusion.presets import PRESETS
    from swingby.diffusion.runs.position_search import CANDIDATES as POSITION_CANDIDATES
    from swingby.diffusion.runs.search import CANDIDATES

    ap = argparse.ArgumentParser(prog="python -m swingby.diffusion", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sw = sub.add_parser("sweep", help="train, sample and evaluate a sweep (resumes if interrupted)")
    cl = sub.add_parser("classifier", help="train and store the concept classifier")
    se = sub.add_parser("search", help="train the first search's candidates on the decisive case")
    ps = sub.add_parser("position-search", help="the search on the authors' random disc positions (issue 21)")
    pc = sub.add_parser("precision-check", help="paired fp32 / bf16 runs: does bf16 autocast keep the outcome?")
    pc.add_argument("--design", default="second", help="first or second (the book's)")
    ls = sub.add_parser("long-search", help="the position search at 4800 steps, and its confirmatory sweep")
    from swingby.diffusion.runs.long_search import CANDIDATES as LONG_CANDIDATES
    ls.add_argument("--only", nargs="+", default=None, help=f"some of {[c[0] for c in LONG_CANDIDATES]}")
    ls.add_argument("--sweep", action="store_true", help="run the confirmatory sweep of the chosen candidate")
    ls.add_argument("--no-progress", action="store_true")
    for s in (sw, cl):
        s.add_argument("--preset", required=True, help=f"one of {sorted(PRESETS)}")
        s.add_argument("--out", default=None, help="output directory (default results/diffusion)")
    sw.add_argument("--seeds", type=int, nargs="+", default=None)
    sw.add_argument("--separations", type=float, nargs="+", default=None,
                    help="colour separations dc in [0, 1]")
    sw.add_argument("--scratch", default=None,
                    help="resumable run states (default: <out>/partial/<preset>-<hash> for the pool, "
                         "kept while a run is unfinished; the executors' default is ~/.cache/swingby-diffusion)")
    sw.add_argument("--device", default="cpu", help="cpu (default), cuda or auto")
    sw.add_argument("--no-progress", action="store_true")
    jobs = sw.add_argument_group("jobs (--executor submitit-local or slurm)")
    jobs.add_argument("--executor", default="pool",
                      help="pool (default: local worker processes), submitit-local or slurm")
    jobs.add_argument("--collect", action="store_true",
                      help="only merge the finished jobs' runs (from --scratch) into the results file")
    jobs.add_argument("--no-wait", action="store_true", help="submit and return (merge later with --collect)")
    jobs.add_argument("--dry-run", action="store_true", help="slurm: print the job script, submit nothing")
    jobs.add_argument("--jobs-dir", default=None, help="submitit's job files and logs (default <scratch>/jobs)")
    jobs.add_argument("--slurm-config", default=None,
                      help="a .toml or .json file of the options below (the command line overrides it)")
    jobs.add_argument("--partition", default=None)
    jobs.add_argument("--time", default=None, help="per job before a requeue: minutes or [D-]HH:MM:SS (60)")
    jobs.add_argument("--gpus-per-job", type=int, default=None, help="GPUs per job (0)")
    jobs.add_argument("--cpus-per-job", type=int, default=None, help="CPU cores per job (1)")
    jobs.add_argument("--array-parallelism", type=int, default=None, help="jobs running at once (32)")
    jobs.add_argument("--mem-gb", type=float, default=None, help="memory per job in GB")
    jobs.add_argument("--account", default=None)
    jobs.add_argument("--qos", default=None)
    jobs.add_argument("--constraint", default=None)
    jobs.add_argument("--max-requeues", type=int, default=None, help="time-outs a job may be requeued after (3)")
    se.add_argument("--only", nargs="+", default=None, help=f"some of {[c[0] for c in CANDIDATES]}")
    ps.add_argument("--only", nargs="+", default=None, help=f"some of {[c[0] for c in POSITION_CANDIDATES]}")
    ps.add_argument("--new-sweep", action="store_true",
                    help="run the new cpu sweep of the chosen candidate (position_search.CHOSEN) instead")
    ps.add_argument("--no-progress", action="store_true")
    return ap


def main(argv=None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    from pathlib import Path

    from swingby.diffusion.presets import get_preset
    from swingby.diffusion.runs import driver as S
    from swingby.diffusion.runs import evaluation as EV
    from swingby.diffusion.runs import search as Q
    from swingby.diffusion.runs import storage as ST

    try:
        if args.cmd == "precision-check":
            from swingby.diffusion.runs import precision_check as PC

            r = PC.run_check(args.design)
            print(json.dumps({k: r[k] for k in ("readouts", "difference", "comparator", "keeps", "max_ratio")}))
            return 0
        if args.cmd == "long-search":
            from swingby.diffusion.runs import long_search as LS

            if args.sweep:
                if args.only:
                    raise ValueError("--sweep runs the chosen candidate's sweep; leave out --only")
                print(LS.run_sweep(progress=not args.no_progress))
                return 0
            LS.run_search(only=args.only, progress=not args.no_progress)
            print(json.dumps(LS.choose(LS.collect()), indent=1))
            return 0
        if args.cmd == "position-search":
            from swingby.diffusion.runs import position_search as PS

            if args.new_sweep:
                if args.only:
                    raise ValueError("--new-sweep runs the chosen candidate's sweep; leave out --only")
                print(PS.run_new_sweep(progress=not args.no_progress))
                return 0
            names = [c[0] for c in PS.CANDIDATES]
            bad = [n for n in args.only or [] if n not in names]
            if bad:
                raise ValueError(f"--only: unknown candidate(s) {bad}; the candidates are {names}")
            for name in args.only or names:
                r = PS.run_candidate(name, progress=not args.no_progress)
                print(name, {k: v for k, v in r.items() if k != "runs"}, flush=True)
                PS.summarise()
            print(PS.table(PS.summarise()))
            return 0
        if args.cmd == "search":
            for name in args.only or [c[0] for c in Q.CANDIDATES]:
                print(name, Q.run_candidate(name))
            print(Q.table(Q.summarise()))
            return 0
        p = get_preset(args.preset)
        if args.cmd == "classifier":
            out = Path(args.out) if args.out else ST.results_dir(for_writing=True)
            _, report = EV.get_classifier(p, out, progress=True)
            print(f"min held-out accuracy {report['min_accuracy']:.4f}")
            return 0
        if args.collect or args.executor != "pool" or _job_options_given(args):
            return _jobs(args, p)
        path = S.sweep(p, seeds=args.seeds, separations=args.separations, out_dir=args.out,
                       scratch=args.scratch, progress=not args.no_progress, device=args.device)
    except (ValueError, TypeError, FloatingPointError) as e:
        ap.error(str(e))
    print(f"results: {path}")
    return 0


_SLURM_ARGS = ("partition", "time", "gpus_per_job", "cpus_per_job", "array_parallelism", "mem_gb", "account",
               "qos", "constraint", "max_requeues")


def _job_options_given(args) -> bool:
    return bool(args.no_wait or args.dry_run or args.jobs_dir or args.slurm_config
                or any(getattr(args, k) is not None for k in _SLURM_ARGS))


def _jobs(args, p) -> int:
    """``sweep --collect`` and ``sweep --executor submitit-local|slurm``."""
    from swingby.diffusion import sweep as SP
    from swingby.diffusion.runs import collect as COL
    from swingby.diffusion.runs import driver as S
    from swingby.diffusion.runs import executors as E
    from swingby.diffusion.runs import job_options as JO

    kind = E.check_executor(args.executor)
    if kind == "pool" and not args.collect:
        raise ValueError("--no-wait, --dry-run, --jobs-dir, --slurm-config and the SLURM options need "
                         "--executor submitit-local or slurm")
    over = dict(seeds=args.seeds, separations=args.separations, out_dir=args.out, scratch=args.scratch)
    if args.collect:
        c = COL.collect(p, executor=kind if kind != "pool" else None, **over)
        n = len(c.merged)
        print(f"results: {c.path}: merged {n} run{'' if n == 1 else 's'}, {len(c.missing)} not finished, "
              f"{len(c.refused)} refused; {'every run is in it' if c.finished else 'not complete yet'}")
        return 1 if c.refused else 0
    if kind == "slurm" and args.scratch is None:
        raise ValueError("--scratch is required with --executor slurm: a directory on storage that the "
                         "compute nodes share (run states and finished runs live there)")
    opts = JO.slurm_options(args.slurm_config, **{k: getattr(args, k) for k in _SLURM_ARGS})
    if args.dry_run:
        if kind != "slurm":
            raise ValueError("--dry-run shows a SLURM job script: it needs --executor slurm")
        from pathlib import Path

        p = S._resolve_preset(p, args.seeds, args.separations)
        n = len(p.seeds) * len(p.separations)
        jobs_dir = Path(args.jobs_dir) if args.jobs_dir else Path(args.scratch) / "jobs"
        print(JO.sbatch_script(opts, jobs_dir, n, E.job_name(p)))
        return 0
    jobs, c = E.submit(p, executor=kind, device=args.device, options=opts, jobs_dir=args.jobs_dir,
                       wait=not args.no_wait, **over)
    if c is None:
        print(f"submitted {len(jobs)} job(s); merge their runs with: python -m swingby.diffusion sweep "
              f"--preset {args.preset} --collect --scratch {args.scratch or SP.default_scratch(p)}"
              + (f" --out {args.out}" if args.out else ""))
        return 0
    print(f"results: {c.path} ({'every run is in it' if c.finished else 'not complete: see the messages above'})")
    return 0 if c.finished else 1


if __name__ == "__main__":
    sys.exit(main())
