"""order_quad: one order for a card's four corners, however they are given; grown: a quad's margin."""
import math

import numpy as np
from hypothesis import given, settings, strategies as st

from vision.geometry import grown, order_quad, order_quads


@settings(max_examples=300, deadline=None)
@given(st.floats(0, 2 * math.pi), st.floats(20, 400), st.floats(1.1, 1.8),
       st.permutations(range(4)), st.floats(0, 1000), st.floats(0, 1000))
def test_any_order_of_a_cards_corners_comes_out_clockwise_from_a_short_edge(angle, short, aspect, perm, cx, cy):
    half = np.array([[-short, -short * aspect], [short, -short * aspect],
                     [short, short * aspect], [-short, short * aspect]]) / 2
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    corners = half @ rot.T + [cx, cy]
    q = order_quad(corners[list(perm)])
    assert q.dtype == np.float32 and q.shape == (4, 2)
    assert sorted(map(tuple, np.round(q, 2))) == sorted(map(tuple, np.round(corners.astype(np.float32), 2)))
    d = np.roll(q, -1, axis=0) - q
    side = np.hypot(d[:, 0], d[:, 1])
    assert side[0] < side[1] and side[2] < side[3]                      # first edge short
    assert (d[:, 0] * np.roll(d, -1, axis=0)[:, 1] - d[:, 1] * np.roll(d, -1, axis=0)[:, 0] > 0).all()  # clockwise, y down
    assert q[0, 1] + q[1, 1] <= q[2, 1] + q[3, 1]                      # the upper short edge first
    np.testing.assert_array_equal(q, order_quad(corners[::-1]))       # the same order from any start
    np.testing.assert_array_equal(q, order_quads(corners[list(perm)][None])[0])   # as the batch version


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 2 * math.pi), st.floats(40, 300), st.floats(1.1, 1.8), st.floats(0, 30))
def test_a_grown_rectangle_has_each_side_moved_out_by_the_margin(angle, short, aspect, by):
    """A card's margin round its frame line, seen square: each side moves out by ``by``."""
    w, h = short, short * aspect
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    q = order_quad((np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2) @ rot.T + [500, 400])
    g = grown(q, by)
    d = g[[1, 2, 3, 0]] - g
    assert np.allclose(sorted(np.hypot(d[:, 0], d[:, 1])), sorted([w + 2 * by] * 2 + [h + 2 * by] * 2), atol=1e-2)
    assert np.allclose(g.mean(axis=0), q.mean(axis=0), atol=1e-2)
    assert np.allclose(g, order_quad(g), atol=1e-3)                 # still in the quad's order
