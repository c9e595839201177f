"""parallel.ordered_map: the results of a serial map, in order, from forked processes."""

from __future__ import annotations

import argparse
import base64
import os
from pathlib import Path

import pandas as pd
import pytest

from schedsim.parallel import ordered_map, process_count
from schedsim.summary import compact_png, summary_html


@pytest.mark.parametrize("processes", [1, 2, 3, 8])
def test_the_results_are_the_serial_map_in_order(processes: int) -> None:
    offset = 7  # a closure: nothing but the index goes to a piece's process

    def piece(item: int) -> tuple[int, int]:
        return item * item + offset, os.getpid()

    results = ordered_map(piece, list(range(11)), processes)
    assert [value for value, _ in results] == [i * i + 7 for i in range(11)]
    pids = {pid for _, pid in results}
    assert (pids == {os.getpid()}) == (processes == 1)


def test_a_failing_piece_fails_the_map() -> None:
    def piece(item: int) -> int:
        if item == 3:
            raise ValueError("piece 3")
        return item

    with pytest.raises(ValueError, match="piece 3"):
        ordered_map(piece, list(range(5)), 2)


@pytest.mark.parametrize("text", ["0", "-1", "1.5", "two", "1_0"])
def test_a_process_count_is_a_whole_number_of_at_least_one(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="allowed: a whole number >= 1"):
        process_count(text)
    assert process_count("2") == 2


def test_the_summary_page_is_the_same_for_any_process_count(tmp_path: Path) -> None:
    from PIL import Image

    claims = pd.DataFrame([{"target": f"LOS-F{k}", "claim_id": "c", "statement": "s",
                            "paper_value": "", "our_value": "", "verdict": "reproduced",
                            "rule": "r", "note": ""} for k in range(1, 6)])
    figures = {}
    for k in range(1, 6):
        figures[f"LOS-F{k}"] = tmp_path / f"LOS-F{k}.png"
        image = Image.new("RGB", (60, 40), (10 * k, 10, 200))
        image.putpixel((k, k), (255, 255, 0))
        image.save(figures[f"LOS-F{k}"])
    pages = {summary_html(claims, figures, processes=n) for n in (1, 2, 3)}
    assert len(pages) == 1
    page = next(iter(pages))
    for target, path in figures.items():  # each picture under its own target
        data = base64.b64encode(compact_png(path.read_bytes())).decode("ascii")
        assert f"alt='{target}' src='data:image/png;base64,{data}'" in page
