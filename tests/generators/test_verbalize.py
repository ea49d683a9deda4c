"""The user's words for a walk: every value stated, sent back when missing, added when
the model never states it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from generators.sampling import Chain
from generators.verbalize import request_problems, unaddressed, verbalize
from tests.generators.library import (
    Asked,
    ask,
    last_user,
    reply,
)
from toolscale.matching import mentions
from toolscale.schema import Scalar
from toolscale.testing.fakellm import Reply, scripted
from toolscale.tool import ToolCall, ToolResult

CHAIN = Chain(
    calls=[
        ToolCall(name="get_members", arguments={"member_id": 104}),
        ToolCall(name="borrow_book", arguments={"member_id": 104, "book_id": 203}),
    ],
    results=[ToolResult(ok=True, output={"member_id": 104}), ToolResult(ok=True, output=[])],
    facts=[("member_id", 104), ("book_id", 203)],
)


WITHOUT = reply({"instruction": "I would like to borrow a book, please.", "known_facts": []})


WITH = reply(
    {
        "instruction": "I am member 104 and I would like to borrow book 203.",
        "known_facts": ["My member id is 104"],
    }
)


def verbalized(tmp_path: Path, *replies: Reply) -> Asked:
    return ask(scripted(*replies), tmp_path, lambda llm: verbalize(llm, "library", CHAIN))


def test_verbalize_sends_missing_values_back(tmp_path: Path) -> None:
    asked = verbalized(tmp_path, WITHOUT, WITH)
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    assert outcome.value.completed == 0
    assert outcome.value.instruction == "I am member 104 and I would like to borrow book 203."
    assert outcome.value.known_facts == ["My member id is 104"]
    assert asked.llm.ledger.stage("verbalize").repairs == 1
    feedback = last_user(asked.requests[1])
    assert "member_id = 104" in feedback and "book_id = 203" in feedback
    prompt = last_user(asked.requests[0])
    assert "- member id: 104" in prompt and "1. get members (member id 104)" in prompt


def test_verbalize_adds_the_values_a_model_never_states(tmp_path: Path) -> None:
    asked = verbalized(tmp_path, WITHOUT)
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    assert outcome.attempts == 3
    assert outcome.value.completed == len(CHAIN.facts)
    assert outcome.value.known_facts == ["My member id is 104.", "My book id is 203."]
    text = "\n".join([outcome.value.instruction, *outcome.value.known_facts])
    assert all(mentions(text, v) for _, v in CHAIN.facts)


def test_the_speaker_is_of_the_peoples_kind_and_anothers_field_is_not_theirs(
    tmp_path: Path,
) -> None:
    """School's teachers, told they were customers and given "student first name: Pamela",
    wrote "My student first name is Pamela" and "I want to enroll my child". The prompt
    names who speaks, and a value of another record added as a fact is that record's."""
    chain = dataclasses.replace(
        CHAIN, facts=[("member_id", 104), ("book's title", "Dune")], speaker="teacher"
    )
    asked = ask(scripted(WITHOUT), tmp_path, lambda llm: verbalize(llm, "library", chain))
    assert asked.value.ok and asked.value.value is not None
    assert asked.value.value.known_facts == ["My member id is 104.", "The book's title is Dune."]
    prompt = last_user(asked.requests[0])
    assert prompt.startswith("Write what a teacher of a library service says")
    assert "customer" not in prompt
    assert "- book's title: Dune" in prompt


def test_verbalize_rejects_json_for_words(tmp_path: Path) -> None:
    asked = verbalized(
        tmp_path, reply({"instruction": '{"member_id": 104, "book_id": 203}', "known_facts": []})
    )
    outcome = asked.value
    assert not outcome.ok and outcome.value is None
    assert outcome.rejection.reason == "bad_words"
    assert outcome.attempts == 3
    assert asked.llm.ledger.stage("verbalize").failures == {"bad_words": 1}


def test_verbalize_adds_values_even_after_a_malformed_answer(tmp_path: Path) -> None:
    outcome = verbalized(tmp_path, Reply(content="not json"), WITHOUT).value
    assert outcome.ok, outcome.rejection
    assert outcome.value.completed == len(CHAIN.facts)


def test_a_purpose_replaces_the_steps_and_an_unsaid_write_or_question_goes_back(
    tmp_path: Path,
) -> None:
    chain = dataclasses.replace(
        CHAIN,
        purpose="borrow book, for their book whose title is Dune.",
        operations=[["borrow"]],
        wanted=["due_on"],
    )
    vague = reply({"instruction": "I am member 104 and I need book 203 today.", "known_facts": []})
    clear = reply(
        {
            "instruction": "I am member 104: please lend me book 203 and tell me when it is due.",
            "known_facts": [],
        }
    )
    asked = ask(scripted(vague, clear), tmp_path, lambda llm: verbalize(llm, "library", chain))
    assert asked.value.ok and asked.value.value.instruction.startswith("I am member 104: please")
    prompt = last_user(asked.requests[0])
    assert "What the customer wants: borrow book, for their book whose title is Dune." in prompt
    assert "1. get members" not in prompt  # the steps are not shown
    assert 'like "My member id is 104"' in prompt  # an example the model may copy is true
    assert "203" not in prompt.replace("book id: 203", "")
    feedback = last_user(asked.requests[1])
    assert "using one of these words: borrow" in feedback
    assert "must ask to be told the due on" in feedback


def test_a_question_the_model_never_asks_is_added_and_counted(tmp_path: Path) -> None:
    chain = dataclasses.replace(CHAIN, wanted=["due_on"])
    silent = reply({"instruction": "I am member 104 and I borrow book 203.", "known_facts": []})
    asked = ask(
        scripted(silent, silent, silent),
        tmp_path,
        lambda llm: verbalize(llm, "library", chain),
    )
    assert asked.value.ok
    words = asked.value.value
    assert words.instruction == (
        "I am member 104 and I borrow book 203. Please tell me the due on afterwards."
    )
    assert words.completed == 1


def test_a_greeting_to_someone_by_name_is_left_out(tmp_path: Path) -> None:
    """The 1.5B opened with the customer's own name ("Dear Scott Ward, ...", "Hello, Carrie.
    Can you help ..."): the customer writes to an assistant that has none."""
    named = reply(
        {
            "instruction": "Dear Scott Ward, I am member 104 and I would like to borrow book 203.",
            "known_facts": ["My member id is 104"],
        }
    )
    outcome = verbalized(tmp_path, named).value
    assert outcome.ok, outcome.rejection
    assert outcome.value.instruction == "I am member 104 and I would like to borrow book 203."
    assert unaddressed("Hi there! I need help.") == "Hi there! I need help."
    assert unaddressed("Hello there, Cristina! I need a card.") == "I need a card."
    assert unaddressed("Bruce, please freeze my card.") == "Please freeze my card."
    assert unaddressed("Chloe Chavez, please freeze my card.") == "Please freeze my card."
    assert unaddressed("Also, my card is lost.") == "Also, my card is lost."
    # movie's "Hello, misty. I need to withdraw ..." and "Hello, T Smith. I need to book ..."
    assert unaddressed("Hello, misty. I need a card.") == "I need a card."
    assert unaddressed("Hello, T Smith. I need a card.") == "I need a card."
    assert unaddressed("Hi I need a card.") == "Hi I need a card."
    # weather-intent-00048 on 8a86ecf: "Hi West Stephanieport Station, please let me know"
    assert unaddressed("Hi West Stephanieport Station, please help.") == "Please help."
    assert (
        unaddressed("Hi, I'm Ann and I want to close it.") == "Hi, I'm Ann and I want to close it."
    )


def test_a_refusal_asks_for_the_current_values_never_for_those_after(tmp_path: Path) -> None:
    """Finance's refused transfer came back as "I want to know the balance of my new account
    after this transfer": a value that never exists, so the words go back once, and a
    question added at the end asks for the current value."""
    chain = dataclasses.replace(CHAIN, wanted=["due_on"], errors={1: "the book is out"})
    after = reply(
        {
            "instruction": "I am member 104 and I want book 203. Tell me the due date after that.",
            "known_facts": [],
        }
    )
    now = reply(
        {"instruction": "I am member 104 and I want book 203. When is it due?", "known_facts": []}
    )
    asked = ask(scripted(after, now), tmp_path, lambda llm: verbalize(llm, "library", chain))
    assert asked.value.ok and asked.value.value.instruction.endswith("When is it due?")
    feedback = last_user(asked.requests[1])
    assert "asks for something 'after that' the change" in feedback
    prompt = last_user(asked.requests[0])
    assert "told the current due on, as it is now" in prompt
    silent = reply({"instruction": "I am member 104 and I want book 203.", "known_facts": []})
    added = ask(  # a cache of its own: the same prompt was answered above
        scripted(silent, silent, silent),
        tmp_path / "silent",
        lambda llm: verbalize(llm, "library", chain),
    )
    assert added.value.value.instruction.endswith("Please tell me the current due on.")


def test_an_amount_said_as_a_new_total_goes_back(tmp_path: Path) -> None:
    """Finance's "top up my ACC-18078 account balance to $274.85" for a top-up that adds
    274.85: "to" names the balance after, which the gold does not make."""
    topup = ToolCall(name="topup_balance", arguments={"account_id": 7, "amount": 274.85})
    chain = dataclasses.replace(CHAIN, calls=[topup], facts=[("amount", 274.85)])
    to = reply({"instruction": "Please top up my balance to $274.85.", "known_facts": []})
    by = reply({"instruction": "Please top up my balance by $274.85.", "known_facts": []})
    asked = ask(scripted(to, by), tmp_path, lambda llm: verbalize(llm, "finance", chain))
    assert asked.value.ok and asked.value.value.instruction.endswith("by $274.85.")
    assert "'to $274.85' reads as the new total" in last_user(asked.requests[1])


def test_someone_elses_record_goes_back(tmp_path: Path) -> None:
    """Finance's "Please activate her card ending 5035 on her account": the customer asks
    for their own records."""
    topup = ToolCall(name="topup_balance", arguments={"account_id": 7, "amount": 20})
    chain = dataclasses.replace(CHAIN, calls=[topup], facts=[("amount", 20)])
    hers = reply({"instruction": "Please top up her balance by $20.", "known_facts": []})
    mine = reply({"instruction": "Please top up my balance by $20.", "known_facts": []})
    asked = ask(scripted(hers, mine), tmp_path, lambda llm: verbalize(llm, "finance", chain))
    assert asked.value.ok and asked.value.value.instruction.startswith("Please top up my")
    assert "'her balance' is someone else's" in last_user(asked.requests[1])


def test_a_count_said_or_asked_as_what_is_left_goes_back(tmp_path: Path) -> None:
    """Medicine's "I've only got 44 refills left" (44: refills allowed) and "tell me how
    many refills I have left" (told: refills used): what is left is neither."""
    refill = ToolCall(name="use_refill", arguments={"prescription_id": 7})
    chain = dataclasses.replace(
        CHAIN,
        calls=[refill],
        facts=[("prescription refills_allowed", 44)],
        wanted=["prescription_refills_used"],
    )
    wrong = reply(
        {"instruction": "I have 44 refills left. How many refills have I left?", "known_facts": []}
    )
    right = reply(
        {
            "instruction": "My prescription allows 44 refills. How many refills have I used?",
            "known_facts": [],
        }
    )
    asked = ask(scripted(wrong, right), tmp_path, lambda llm: verbalize(llm, "medicine", chain))
    assert asked.value.ok and asked.value.value is not None
    assert asked.value.value.instruction.startswith("My prescription allows 44")
    feedback = last_user(asked.requests[1])
    assert "'44 refills left': 44 is the prescription refills allowed, not what is left" in feedback
    assert "asks what is left; the value told is the prescription refills used" in feedback


def test_a_known_fact_that_is_a_wish_or_a_question_is_left_out(tmp_path: Path) -> None:
    """Basketball's known facts "I want to know the status of Nathan Wood's player" and
    "Crystal Hatfield is currently active or not": what the user asks, not what they know;
    movie's "June 15 is a valid date": what the assistant finds out. A value only such a
    line held comes back as a plain fact; what the user does not know is no fact."""
    wishes = reply(
        {
            "instruction": "I am member 104 and I would like to borrow a book.",
            "known_facts": [
                "My member id is 104",
                "I want to borrow book 203",
                "I'd like to know the current book status",
                "Is the book available?",
                "The book is available or not",
                # movie's "June 15 is a valid date", "2 seats is a reasonable number"
                "Book 203 is a valid book",
                "104 is a reasonable member id",
                # ecommerce's "The return id is unknown": what the user does not know
                "The loan id is unknown",
                # weather's "My reading id is not specified"
                "My loan id is not specified",
                # finance's "The card ID and status will be provided in the response."
                "The loan id and status will be provided in the response.",
                # ecommerce's "I'm not asking for help or greeting you by name."
                "I'm not asking for help or greeting you by name.",
            ],
        }
    )
    outcome = verbalized(tmp_path, wishes).value
    assert outcome.ok, outcome.rejection
    assert outcome.value.known_facts == ["My member id is 104", "My book id is 203."]
    assert outcome.value.completed == 1


def test_a_known_fact_said_twice_is_kept_once(tmp_path: Path) -> None:
    """finance-intent-00009 on d608f62 carried "The to account ID is 27583" twice."""
    twice = reply(
        {
            "instruction": "I am member 104 and I would like to borrow book 203.",
            "known_facts": ["My member id is 104", "My book id is 203", "My member id is 104"],
        }
    )
    outcome = verbalized(tmp_path, twice).value
    assert outcome.ok, outcome.rejection
    assert outcome.value.known_facts == ["My member id is 104", "My book id is 203"]


def test_a_write_said_only_as_a_fact_to_check_goes_back(tmp_path: Path) -> None:
    """Travel's "I want to confirm that the hotel booking I made is still active" for a
    gold that confirms the booking: it asks to check a fact, so it goes back."""
    confirm = ToolCall(name="confirm_booking", arguments={"booking_id": 7})
    chain = dataclasses.replace(CHAIN, calls=[confirm], facts=[], operations=[["confirm"]])
    checks = reply(
        {"instruction": "I want to confirm that my booking is active.", "known_facts": []}
    )
    asks = reply({"instruction": "Please confirm my booking.", "known_facts": []})
    asked = ask(scripted(checks, asks), tmp_path, lambda llm: verbalize(llm, "travel", chain))
    assert asked.value.ok and asked.value.value.instruction == "Please confirm my booking."
    assert "must ask for what the customer wants done" in last_user(asked.requests[1])


def test_a_kind_of_record_named_by_the_operation_goes_back() -> None:
    """Basketball's "I'm looking for a complete basketball game ..." for a gold that
    completes the game: "a complete game" is a kind, so the words go back."""
    complete = ToolCall(name="complete_game", arguments={"game_id": 41124})
    chain = dataclasses.replace(CHAIN, calls=[complete], facts=[], operations=[["complete"]])
    kind = "I'm looking for a complete basketball game starting on February 20, 2024."
    assert any("wants done" in p for p in request_problems(kind, chain))
    assert not request_problems("Please complete my game on February 20, 2024.", chain)


def test_a_refusal_names_in_the_message_the_other_record_it_turns_on() -> None:
    """medicine-intent-00022 on b5cbf4f asked for a prescription and was refused for its
    doctor, whom only the facts named ("Tiffany Carpenter is a doctor"): the words go back
    until the message says the name."""
    facts: list[tuple[str, Scalar]] = [
        ("email", "clara@gmail.com"),
        ("doctor's last_name", "Carpenter"),
    ]
    chain = dataclasses.replace(CHAIN, facts=facts, errors={1: "not the appointment's doctor"})
    unnamed = "Please create a prescription for me with Royal Aspirin."
    assert request_problems(unnamed, chain) == [
        "the message itself must say the doctor's last name Carpenter: the refusal turns on it"
    ]
    assert not request_problems(unnamed.replace("me", "me by Dr. Carpenter"), chain)
    assert not request_problems(unnamed, dataclasses.replace(chain, errors={}))


def test_another_persons_record_called_mine_goes_back(tmp_path: Path) -> None:
    """Finance's 1.5B knew "My account id is 27566" of the account money went to, another
    client's (13 of its first 180 drafts on 310b6d0 were false_fact for it): the prompt says
    whose it is, the words that call it "my" go back, and a value the model never states
    is added as the record's, not the customer's."""
    send = ToolCall(name="transfer", arguments={"from_id": 27555, "to_id": 27566, "amount": 5})
    facts: list[tuple[str, Scalar]] = [("amount", 5), ("to_account_id", 27566)]
    chain = dataclasses.replace(CHAIN, calls=[send], facts=facts, foreign=[27566])
    claimed = reply(
        {
            "instruction": "Please send 5 from my account to account 27566.",
            "known_facts": ["My to account id is 27566"],
        }
    )
    kept = reply(
        {
            "instruction": "Please send 5 from my account to account 27566.",
            "known_facts": ["The to account id is 27566"],
        }
    )
    asked = ask(scripted(claimed, kept), tmp_path, lambda llm: verbalize(llm, "finance", chain))
    assert asked.value.ok and asked.value.value is not None
    assert asked.value.value.known_facts == ["The to account id is 27566"]
    assert "The to account id is someone else's, not the customer's" in last_user(asked.requests[0])
    feedback = last_user(asked.requests[1])
    assert "'My to account id is 27566': 27566 is someone else's record" in feedback
    silent = reply({"instruction": "Please send 5 from my account.", "known_facts": []})
    later = tmp_path / "silent"  # a cache of its own
    later.mkdir()
    asked = ask(scripted(silent), later, lambda llm: verbalize(llm, "finance", chain))
    assert asked.value.value is not None
    assert asked.value.value.known_facts == ["The to account id is 27566."]


def test_an_amount_no_value_holds_or_a_blank_goes_back(tmp_path: Path) -> None:
    """Finance's 1.5B said "the outstanding balance is $992.15" of a loan owing 5408.75,
    "I can only transfer $500", and signed "[Your Name]": each went back as false_fact.
    An amount a listed value or a call's output holds, and a count, stay."""
    pay = ToolCall(name="repay_loan", arguments={"loan_id": 7, "amount": 120.5})
    owing = ToolResult(ok=True, output={"loan_id": 7, "outstanding": 5408.75})
    chain = dataclasses.replace(CHAIN, calls=[pay], results=[owing], facts=[("amount", 120.5)])
    made = reply(
        {
            "instruction": "Please repay $120.50 of my loan; it owes $992.15. [Your Name]",
            "known_facts": ["I can pay $500 a month"],
        }
    )
    fair = reply(
        {
            "instruction": "Please repay $120.50 of my loan, which owes 5,408.75, in 2 parts.",
            "known_facts": ["My amount is 120.5"],
        }
    )
    asked = ask(scripted(made, fair), tmp_path, lambda llm: verbalize(llm, "finance", chain))
    assert asked.value.ok and asked.value.value is not None
    assert asked.value.value.instruction.endswith("in 2 parts.")
    feedback = last_user(asked.requests[1])
    assert "'$992.15' is none of the values above" in feedback
    assert "'$500' is none of the values above" in feedback
    assert "'[Your Name]' is a blank" in feedback
    assert "120.50" not in feedback
