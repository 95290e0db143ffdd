"""The schematic of the swing-by that opens the book (``book/intro.md``):
:func:`swingby.theory.plots.plot_swing_by_schematic`."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from swingby.theory.plots import SWING_BY_STAGE_COLOURS, plot_swing_by_schematic  # noqa: E402
from swingby.theory.settings import THEORY_SETTINGS  # noqa: E402


def test_it_draws_the_three_stages_of_the_fig5_run_onto_the_axes():
    fig, ax = plt.subplots()
    try:
        assert plot_swing_by_schematic(ax) is ax
        stages = [line for line in ax.get_lines()
                  if line.get_color() in SWING_BY_STAGE_COLOURS and len(line.get_xdata()) > 2]
        assert [line.get_color() for line in stages] == list(SWING_BY_STAGE_COLOURS)
        # one path, cut into stages: each stretch starts where the one before ends
        for before, after in zip(stages[:-1], stages[1:]):
            assert np.allclose(before.get_xydata()[-1], after.get_xydata()[0])
        # it starts near the origin and ends at x_hat = (mu_1, mu_2)
        assert np.hypot(*stages[0].get_xydata()[0]) < 0.2
        assert np.allclose(stages[-1].get_xydata()[-1], THEORY_SETTINGS["fig5"].mu, atol=0.01)
        # the turn: the path passes within 0.35 of the stronger concept's cluster (mu_2 e_2),
        # nearest where the suppression stage (the loss ascent) ends
        gap = [np.hypot(s.get_xydata()[:, 0], s.get_xydata()[:, 1] - 1.5).min() for s in stages]
        assert min(gap) < 0.35 and gap[1] - min(gap) < 1e-3 < gap[0] - min(gap)
        assert len(ax.get_legend().get_texts()) == 4 and ax.child_axes  # the stages + closest approach; inset
    finally:
        plt.close(fig)


@pytest.mark.parametrize("ax", [None, "axes", plt], ids=["None", "str", "pyplot"])
def test_it_refuses_what_is_not_an_axes(ax):
    with pytest.raises(ValueError, match="ax must be a matplotlib Axes"):
        plot_swing_by_schematic(ax)
