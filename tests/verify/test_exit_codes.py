"""One function combines a command's outcomes into its exit code."""

from __future__ import annotations

import itertools

import pytest

from hwpscan.models import VERIFY_PRECEDENCE, ExitCode, combine_exit_codes
from hwpscan.verify import FAIL, INCONCLUSIVE, PASS, DateVerdict, exit_code


def test_nothing_is_ok() -> None:
    assert combine_exit_codes() is ExitCode.OK
    assert combine_exit_codes(ExitCode.OK, ExitCode.OK) is ExitCode.OK


@pytest.mark.parametrize("pair", list(itertools.product(list(ExitCode), repeat=2)))
def test_by_default_the_highest_code_wins_in_any_order(pair: tuple[ExitCode, ExitCode]) -> None:
    a, b = pair
    assert combine_exit_codes(a, b) == combine_exit_codes(b, a) == max(a, b)
    assert isinstance(combine_exit_codes(a, b), ExitCode)


def test_a_stopped_fetch_outranks_findings_in_a_scan() -> None:
    assert combine_exit_codes(ExitCode.FINDINGS, ExitCode.API) is ExitCode.API
    assert combine_exit_codes(ExitCode.FINDINGS, ExitCode.INTERNAL) is ExitCode.INTERNAL


def test_a_signal_code_outside_the_enum_still_wins() -> None:
    assert combine_exit_codes(ExitCode.FINDINGS, 143) == 143


def test_precedence_picks_the_first_present_code() -> None:
    codes = (ExitCode.INCONCLUSIVE, ExitCode.API, ExitCode.FINDINGS)
    assert combine_exit_codes(*codes, precedence=VERIFY_PRECEDENCE) is ExitCode.FINDINGS
    assert combine_exit_codes(*codes[:2], precedence=VERIFY_PRECEDENCE) is ExitCode.API
    # a code the order does not name loses to one it names
    assert (
        combine_exit_codes(ExitCode.USAGE, ExitCode.INCONCLUSIVE, precedence=VERIFY_PRECEDENCE)
        is ExitCode.INCONCLUSIVE
    )


def _v(verdict: str) -> DateVerdict:
    return DateVerdict("2025-07-21", verdict, "", "clean")


@pytest.mark.parametrize(
    ("verdicts", "stopped", "expected"),
    [
        ([PASS, PASS], False, ExitCode.OK),
        ([PASS, FAIL, INCONCLUSIVE], False, ExitCode.FINDINGS),
        ([PASS, FAIL], True, ExitCode.FINDINGS),
        ([PASS, INCONCLUSIVE], True, ExitCode.API),
        ([PASS], True, ExitCode.API),
        ([PASS, INCONCLUSIVE], False, ExitCode.INCONCLUSIVE),
        ([], False, ExitCode.INCONCLUSIVE),
        ([], True, ExitCode.API),
    ],
)
def test_verify_ranks_a_proven_failure_first(
    verdicts: list[str], stopped: bool, expected: ExitCode
) -> None:
    assert exit_code([_v(v) for v in verdicts], stopped=stopped) is expected
