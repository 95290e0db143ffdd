"""ipywidgets explorers. Each returns the widget box; its static output at the
default values is drawn at once, so the page shows something without a kernel."""
from __future__ import annotations

import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython.display import display

from swingby.plotting import plot_sim_3d
from swingby.sim import make_sim, second_moment


def sim_data_explorer(mu=(1.0, 2.0, 1.5), sigma=(0.2, 0.2, 0.2), n_per_cluster: int = 300):
    """Explore the SIM training set (Fig. 1c) for chosen ``mu`` and ``sigma``
    (``s = 3``, ``d = 3``): sliders redraw the clusters, the test points and ``a``."""
    sl = dict(continuous_update=False, readout_format=".2f")
    mus = [widgets.FloatSlider(value=m, min=0.0, max=4.0, step=0.1, description=f"mu_{k + 1}", **sl)
           for k, m in enumerate(mu)]
    sigmas = [widgets.FloatSlider(value=s, min=0.0, max=1.5, step=0.05, description=f"sigma_{k + 1}", **sl)
              for k, s in enumerate(sigma)]
    origin = widgets.Checkbox(value=False, description="origin cluster")
    truncate = widgets.Checkbox(value=False, description="truncate")
    out = widgets.Output()

    def redraw(*_):
        m = [w.value for w in mus]
        s = [w.value for w in sigmas]
        with out:
            out.clear_output(wait=True)
            if truncate.value and min(m) == 0:
                print("truncation needs every mu > 0")
                return
            data = make_sim(m, s, 3, n_per_cluster, origin_cluster=origin.value,
                            truncate=truncate.value, seed=0)
            a = second_moment(m, s, 3, origin_cluster=origin.value)
            fig = plt.figure(figsize=(5.5, 5))
            ax = fig.add_subplot(projection="3d")
            plot_sim_3d(data, ax)
            ax.set_title("a = diag(A) = (" + ", ".join(f"{v:.2f}" for v in a) + ")", fontsize=9)
            plt.show()

    for w in mus + sigmas + [origin, truncate]:
        w.observe(redraw, names="value")
    box = widgets.HBox([widgets.VBox(mus + sigmas + [origin, truncate]), out])
    redraw()
    display(box)
    return box
