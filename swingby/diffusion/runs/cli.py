"""Command line of the diffusion experiments (paper Sec. 5)::

    python -m swingby.diffusion sweep --preset cpu        # the Sec. 5 sweep (resumes if interrupted)
    python -m swingby.diffusion classifier --preset cpu   # train and store the concept classifier
    python -m swingby.diffusion search | position-search [--new-sweep] | long-search [--sweep]
    python -m swingby.diffusion precision-check           # does bf16 autocast keep a run's outcome?

A sweep's --executor: pool (default: the preset's `workers` local processes), submitit-local (a
submitit job per run) or slurm (a SLURM array task per run, requeued on preemption; needs `pip install
'swingby[cluster]'`): ``sweep --preset paper --executor slurm --scratch DIR --partition gpu --gpus-per-job 1
--device auto``, then ``sweep --preset paper --collect --scratch DIR``. Results go to --out, else to
diffusion/ of the results folder (``results/`` or ``$SWINGBY_RESULTS``).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from swingby.diffusion import sweep as SP
from swingby.diffusion.presets import PRESETS, get_preset
from swingby.diffusion.runs import driver, evaluation, long_search, position_search, precision_check, search, storage
from swingby.diffusion.runs import executors as E

__all__ = []

#: the SLURM options of ``sweep``: (name, type, help)
_SLURM_ARGS = (("partition", str, None), ("time", str, "per job before a requeue: minutes or [D-]HH:MM:SS (60)"),
               ("gpus_per_job", int, "GPUs per job (0)"), ("cpus_per_job", int, "CPU cores per job (1)"),
               ("array_parallelism", int, "jobs running at once (32)"), ("mem_gb", float, "memory per job in GB"),
               ("account", str, None), ("qos", str, None), ("constraint", str, None),
               ("max_requeues", int, "time-outs a job may be requeued after (3)"))


def _parser():
    ap = argparse.ArgumentParser(prog="python -m swingby.diffusion", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sw = sub.add_parser("sweep", help="train, sample and evaluate a sweep (resumes if interrupted)")
    cl = sub.add_parser("classifier", help="train and store the concept classifier")
    for s in (sw, cl):
        s.add_argument("--preset", required=True, help=f"one of {sorted(PRESETS)}")
        s.add_argument("--out", default=None, help="output directory (default: diffusion/ of the results folder)")
    searches = {"search": (search, "train the first search's candidates on the decisive case", None),
                "position-search": (position_search, "the search on the authors' random disc positions",
                                    ("--new-sweep", "run the new cpu sweep of the chosen candidate instead")),
                "long-search": (long_search, "the position search at 4800 steps, and its confirmatory sweep",
                                ("--sweep", "run the confirmatory sweep of the chosen candidate instead"))}
    for cmd, (module, text, flag) in searches.items():
        se = sub.add_parser(cmd, help=text)
        se.add_argument("--only", nargs="+", default=None, help=f"some of {[c[0] for c in module.CANDIDATES]}")
        se.add_argument("--no-progress", action="store_true")
        if flag:
            se.add_argument(flag[0], action="store_true", help=flag[1])
    pc = sub.add_parser("precision-check", help="paired fp32 / bf16 runs: does bf16 autocast keep the outcome?")
    pc.add_argument("--design", default="second", help="first or second (the book's)")
    sw.add_argument("--seeds", type=int, nargs="+", default=None)
    sw.add_argument("--separations", type=float, nargs="+", default=None, help="colour separations dc in [0, 1]")
    sw.add_argument("--scratch", default=None, help="resumable run states (default: <out>/partial/<preset>-<hash> "
                    "for the pool, ~/.cache/swingby-diffusion for the executors)")
    sw.add_argument("--device", default="cpu", help="cpu (default), cuda or auto")
    sw.add_argument("--no-progress", action="store_true")
    jobs = sw.add_argument_group("jobs (--executor submitit-local or slurm)")
    jobs.add_argument("--executor", default="pool", help="pool (default: local worker processes), submitit-local or slurm")
    jobs.add_argument("--collect", action="store_true",
                      help="only merge the finished jobs' runs (from --scratch) into the results file")
    jobs.add_argument("--no-wait", action="store_true", help="submit and return (merge later with --collect)")
    jobs.add_argument("--dry-run", action="store_true", help="slurm: print the job script, submit nothing")
    jobs.add_argument("--jobs-dir", default=None, help="submitit's job files and logs (default <scratch>/jobs)")
    jobs.add_argument("--slurm-config", default=None,
                      help="a .toml or .json file of the options below (the command line overrides it)")
    for name, kind, text in _SLURM_ARGS:
        jobs.add_argument("--" + name.replace("_", "-"), type=kind, default=None, help=text)
    return ap


def main(argv=None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); the exit status."""
    ap = _parser()
    args = ap.parse_args(argv)
    try:
        if args.cmd == "precision-check":
            r = precision_check.run_check(args.design)
            text = json.dumps({k: r[k] for k in ("readouts", "difference", "comparator", "keeps", "max_ratio")})
        elif args.cmd == "search":
            text = search.table(search.run_search(args.only, progress=not args.no_progress))
        elif args.cmd == "position-search":
            out = position_search.run_search(args.only, new_sweep=args.new_sweep, progress=not args.no_progress)
            text = out if args.new_sweep else position_search.table(out)
        elif args.cmd == "long-search":
            out = long_search.run_search(args.only, sweep=args.sweep, progress=not args.no_progress)
            text = out if args.sweep else json.dumps(long_search.choose(out), indent=1)
        elif args.cmd == "classifier":
            p = get_preset(args.preset)
            _, report = evaluation.get_classifier(p, args.out or storage.results_dir(for_writing=True), progress=True)
            text = f"min held-out accuracy {report['min_accuracy']:.4f}"
        else:
            p = get_preset(args.preset)
            job_options = args.no_wait or args.dry_run or args.jobs_dir or args.slurm_config \
                or any(getattr(args, k) is not None for k, _, _ in _SLURM_ARGS)
            if args.collect or args.executor != "pool" or job_options:
                return _jobs(args, p)
            path = driver.sweep(p, seeds=args.seeds, separations=args.separations, out_dir=args.out,
                                scratch=args.scratch, progress=not args.no_progress, device=args.device)
            text = f"results: {path}"
    except (ValueError, TypeError, FloatingPointError) as e:
        ap.error(str(e))
    print(text)
    return 0


def _jobs(args, p) -> int:
    """``sweep --collect`` and ``sweep --executor submitit-local|slurm``."""
    kind = E.check_executor(args.executor)
    if kind == "pool" and not args.collect:
        raise ValueError("--no-wait, --dry-run, --jobs-dir, --slurm-config and the SLURM options need "
                         "--executor submitit-local or slurm")
    over = dict(seeds=args.seeds, separations=args.separations, out_dir=args.out, scratch=args.scratch)
    if args.collect:
        c = E.collect(p, executor=kind if kind != "pool" else None, **over)
        n = len(c.merged)
        print(f"results: {c.path}: merged {n} run{'' if n == 1 else 's'}, {len(c.missing)} not finished, "
              f"{len(c.refused)} refused; {'every run is in it' if c.finished else 'not complete yet'}")
        return 1 if c.refused else 0
    if kind == "slurm" and args.scratch is None:
        raise ValueError("--scratch is required with --executor slurm: a directory on storage that the "
                         "compute nodes share (run states and finished runs live there)")
    opts = E.slurm_options(args.slurm_config, **{k: getattr(args, k) for k, _, _ in _SLURM_ARGS})
    if args.dry_run:
        if kind != "slurm":
            raise ValueError("--dry-run shows a SLURM job script: it needs --executor slurm")
        p = driver.resolve_preset(p, args.seeds, args.separations)
        jobs_dir = Path(args.jobs_dir) if args.jobs_dir else Path(args.scratch) / "jobs"
        print(E.sbatch_script(opts, jobs_dir, len(p.seeds) * len(p.separations), E.job_name(p)))
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
