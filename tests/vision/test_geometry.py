"""order_quad: one order for a card's four corners, however they are given."""
import math

import numpy as np
from hypothesis import given, settings, strategies as st

from vision.geometry import order_quad, order_quads


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
