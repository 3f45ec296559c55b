"""The prompt sets keep the shape the protocol promises (counts, groups, ids, planted names)."""

from __future__ import annotations

from collections import Counter

from hallubench.hallucinated_packages.cases import CASE_ID, v6_cases, v7_cases
from hallubench.hallucinated_packages.decoys import PLANTED, match_decoy
from hallubench.hallucinated_packages.prompt_sets import V6_PROMPTS, V7_PROMPTS


def test_v6_has_nine_python_and_five_javascript_prompts() -> None:
    assert Counter(p.language for p in V6_PROMPTS) == {"python": 9, "javascript": 5}


def test_v7_groups() -> None:
    assert len(V7_PROMPTS) == 17
    assert Counter(p.group for p in V7_PROMPTS) == {"A": 6, "B": 5, "C": 4, "D": 2}


def test_every_planted_name_is_used_once_and_named_in_its_prompt() -> None:
    group_b = [p for p in V7_PROMPTS if p.group == "B"]
    assert sorted(p.decoy for p in group_b if p.decoy) == sorted(PLANTED)
    for prompt in group_b:
        assert prompt.decoy is not None and prompt.decoy in prompt.task
        assert not any(match_decoy(known) for known in prompt.known_packages), prompt.prompt_id


def test_removed_api_prompts_say_what_was_removed() -> None:
    for prompt in (p for p in V7_PROMPTS if p.group == "D"):
        assert prompt.removed_api and prompt.removed_api["replacement"]


def test_case_ids_are_unique_well_formed_and_repeat_each_prompt() -> None:
    for cases, prompts in ((v6_cases(), V6_PROMPTS), (v7_cases(repeats=5), V7_PROMPTS)):
        ids = [c["id"] for c in cases]
        assert len(set(ids)) == len(ids)
        assert all(CASE_ID.match(i) for i in ids)
        assert len(cases) == len(prompts) * (3 if len(cases) == 3 * len(prompts) else 5)
    assert "v7-B03-py-k2" in {c["id"] for c in v7_cases()}
