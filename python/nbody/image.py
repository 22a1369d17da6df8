"""Pictures of a simulation as numpy arrays (``Simulation.render``)."""
import numpy as _np

from . import _core


class Image(_np.ndarray):
    """An (height, width, 3) uint8 RGB image, rows from the top: a numpy array that Jupyter shows
    as a picture (``_repr_png_``). ``matplotlib.pyplot.imshow(img)`` shows it too, and
    ``img.save(path)`` writes it as a PNG file."""

    def __new__(cls, rgb):
        return _np.asarray(rgb, dtype=_np.uint8).view(cls)

    def _repr_png_(self):
        return _core.encode_png(_np.ascontiguousarray(self.view(_np.ndarray)))

    def save(self, path):
        """Writes the image as a PNG file; returns the path."""
        with open(path, "wb") as f:
            f.write(self._repr_png_())
        return path
