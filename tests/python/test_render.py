"""Simulation.render: the picture as an (H, W, 3) uint8 numpy array that shows itself in Jupyter,
one body on its pixel, colour by component, bad cameras refused, and the GPU's picture equal to
the CPU's (marked gpu)."""
import io

import numpy as np
import pytest

import nbody
from nbody import _core

from conftest import gpu_usable

pytestmark = pytest.mark.skipif(not _core.render_available(), reason="a build without the renderer")


def one_body(**kw):
    return nbody.Simulation.from_arrays(m=[1.0], x=[[0.75, -0.25, 0.0]], v=[[0.0, 0.0, 0.0]], device="cpu", **kw)


def test_render_is_an_rgb_array_that_jupyter_shows():
    sim = nbody.Simulation(ic="plummer", n=2000, seed=4, device="cpu")
    img = sim.render(width=160, height=90)
    assert isinstance(img, np.ndarray) and isinstance(img, nbody.Image)
    assert img.shape == (90, 160, 3) and img.dtype == np.uint8
    assert img.max() > 200, "the densest pixels are bright"
    png = img._repr_png_()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    PILImage = pytest.importorskip("PIL.Image")
    back = np.asarray(PILImage.open(io.BytesIO(png)).convert("RGB"))
    np.testing.assert_array_equal(back, img)


def test_one_body_lands_on_its_pixel():
    # A view 4 wide on 8 x 6 pixels about the origin: pixel size 0.5, x in [-2, 2), y in [-1.5, 1.5).
    # (0.75, -0.25) is column 5, row 2 from the bottom: row 6 - 1 - 2 = 3 from the top.
    img = one_body().render(width=8, height=6, centre=(0, 0, 0), extent=4.0)
    lit = np.argwhere(img.sum(axis=2) > img[0, 0].sum())
    assert lit.tolist() == [[3, 5]]


def test_colour_by_component_gives_each_component_its_hue():
    sim = nbody.Simulation.from_arrays(m=[1.0, 1.0], x=[[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]],
                                       v=[[0.0, 0.0, 0.0]] * 2, device="cpu")
    img = sim.render(width=4, height=2, centre=(0, 0, 0), extent=4.0, components=[0, 1])
    # y = 0 is row 1 from the bottom of two: row 0 from the top; x = -1 and 1: columns 1 and 3.
    left, right = img[0, 1].astype(int), img[0, 3].astype(int)
    # The palette's first two hues (sky blue, orange) at full brightness: the densest pixels.
    assert left.tolist() == [86, 180, 233] and right.tolist() == [230, 159, 0]
    with pytest.raises(nbody.InputError, match="components for 2 bodies"):
        sim.render(width=4, height=2, components=[0])


@pytest.mark.parametrize("kwargs, message", [
    ({"camera": "fisheye"}, "unknown camera 'fisheye'"),
    ({"camera": "perspective"}, "a perspective camera needs a distance"),
    ({"camera": "perspective", "distance": 2.0, "fov": 180.0}, "field of view must be in"),
    ({"extent": -1.0}, "width must be > 0"),
    ({"direction": (0, 1, 0)}, "up must not lie along its direction"),
    ({"width": 0}, "bad image size"),
    ({"colormap": "jet"}, "jet"),
])
def test_bad_cameras_are_input_errors(kwargs, message):
    with pytest.raises(nbody.InputError, match=message):
        one_body().render(**kwargs)


@pytest.mark.gpu
def test_the_gpu_picture_is_the_cpus():
    if not gpu_usable():
        pytest.skip("no usable CUDA device")
    pictures = []
    for device in ("cpu", "cuda"):
        sim = nbody.Simulation(ic="plummer", n=20000, seed=5, device=device, precision="fp64")
        pictures.append(sim.render(width=320, height=180, centre=(0, 0, 0), extent=3.0))
    # The GPU adds float masses (render/splat_gpu.hpp): a colour may differ by one step where a
    # pixel's value sits on an entry's edge.
    diff = np.abs(pictures[0].astype(int) - pictures[1].astype(int))
    assert diff.max() <= 8 and (diff > 0).mean() < 0.01
