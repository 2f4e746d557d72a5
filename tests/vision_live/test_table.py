from __future__ import annotations

import numpy as np
import pytest

from vision.table import (TableConfigError, default_seat_triangles, load_table_config,
                          parse_table_config)


def test_full_config(tmp_path):
    p = tmp_path / "table.toml"
    p.write_text('[table]\nwidth_mm = 800\nheight_mm = 800\ncard_mm = [57, 89]\nclockwise = true\n'
                 '[[seat]]\npolygon_mm = [[0, 800], [800, 800], [400, 400]]\n'
                 '[[seat]]\nid = 1\npolygon_mm = [[800, 0], [800, 800], [400, 400]]\n')
    t = load_table_config(p)
    assert (t.width_mm, t.card_mm, t.clockwise, len(t.seats_mm)) == (800, (57, 89), True, 2)


@pytest.mark.parametrize("doc, message", [
    ({"tabel": {}}, "unknown key 'tabel'"),
    ({"table": {"width": 3}}, "table.width"),
    ({"table": {"width_mm": -1}}, "table.width_mm"),
    ({"table": {"card_mm": [60]}}, "table.card_mm"),
    ({"seat": [{"polygon_mm": [[0, 0], [1, 1]]}]}, r"seat\[0\].polygon_mm"),
    ({"seat": [{"id": 3, "polygon_mm": [[0, 0], [1, 1], [1, 0]]}]}, "seat ids"),
    ({"trick_area": {"poly": 1}}, "trick_area"),
])
def test_bad_configs_name_the_key(doc, message):
    with pytest.raises(TableConfigError, match=message):
        parse_table_config(doc, "t.toml")


def test_unreadable_files(tmp_path):
    with pytest.raises(TableConfigError, match="no such table config"):
        load_table_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[table\n")
    with pytest.raises(TableConfigError, match="not a readable TOML"):
        load_table_config(bad)


def test_default_triangles_start_at_the_bottom_edge_whatever_the_marker_order():
    quad = np.array([[100, 100], [900, 120], [880, 600], [120, 580]], np.float32)
    for shift in range(4):
        tri = default_seat_triangles(np.roll(quad, shift, axis=0))
        centres = [t.mean(axis=0) for t in tri]
        assert centres[0][1] == max(c[1] for c in centres)           # bottom
        assert centres[1][0] == max(c[0] for c in centres)           # right: anticlockwise as seen
        tri_cw = default_seat_triangles(np.roll(quad, shift, axis=0), clockwise=True)
        assert tri_cw[1].mean(axis=0)[0] == min(t.mean(axis=0)[0] for t in tri_cw)
