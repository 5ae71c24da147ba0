"""matplotlib for the diagrams (``tune --plot``, ``calibrate --plot``): an optional
dependency, the ``plot`` extra.  Without it a diagram is refused in one line that says
what to install, before any work is done."""

import io

from tigris.errors import UsageError, install_hint

__all__ = ["pyplot", "png", "whole_numbers"]

EXTRA = f"{install_hint('plot')} (or pip install matplotlib)"


def pyplot(need="drawing needs matplotlib"):
    """``matplotlib.pyplot``, drawing off screen (no display needed); without matplotlib
    a UsageError: `need`, then how to install it."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError(f"{need}: {EXTRA}") from None
    return plt


def png(fig, dpi=100):
    """The PNG bytes of a figure, which is then closed (written by the caller in one
    piece, with tigris.files.write_bytes)."""
    plt = pyplot()
    image = io.BytesIO()
    fig.savefig(image, format="png", dpi=dpi)
    plt.close(fig)
    return image.getvalue()


def whole_numbers(axis):
    """Ticks on whole numbers only along `axis` (``ax.xaxis``, ``ax.yaxis``): iterations,
    an integer knob's values, which a tick at 2.5 would misstate."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))
