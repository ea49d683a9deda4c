"""How an instruction is read: forms and synonyms of a word meet, and a question names the
fields it asks about."""

from __future__ import annotations

import pytest

from toolscale.schema import Column, Schema, Table
from toolscale.tool import Tool
from toolscale.wording import (
    Request,
    entity_words,
    names_operation,
    operation_words,
    record_names,
    same_field,
    singular,
    states_no_fact,
    stem,
)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        *(("closed", "close"), ("closing", "close"), ("cancelled", "cancel")),
        *(("copies", "copy"), ("used", "use")),
        # railway-intent-00009 on 21ceb83: "I want to get refunded for my ticket" was
        # rejected as unasked_write of refund_ticket ("refund" was stemmed "refun")
        *(("refunded", "refund"), ("suspended", "suspend"), ("extends", "extend")),
    ],
)
def test_forms_of_a_word_share_a_stem(a: str, b: str) -> None:
    assert stem(a) == stem(b)


def test_a_request_says_a_synonym_of_the_operation() -> None:
    request = Request("Please send $40 from my checking to savings, and block card K30001.")
    assert request.says("transfer") and request.says("freeze")
    assert not request.says("close") and not request.says("refund")
    assert request.says_any(["close", "move"]) and not request.says_any(["close", "open"])
    # restaurant-intent-00059 on ec28a14: "I want to add 12 to my order for 10 items" was
    # rejected as unasked_write: adding to a quantity tops it up
    assert Request("I want to add 12 to my order for 10 items.").says("topup")


def test_confirming_a_fact_asks_for_no_confirmation() -> None:
    """Travel's gold confirmed a hotel booking for "I want to confirm that the hotel
    booking I made is still active": a fact to check, not a booking to confirm."""
    entities = {"hotel", "booking", "bookings"}
    for checked in (
        "I want to confirm that the hotel booking I made is still active.",
        "Please confirm whether my hotel booking went through.",
        "Could you confirm the status of my booking?",
    ):
        assert not Request(checked).requests("confirm", entities), checked
    for done in ("Please confirm my hotel booking.", "I'd like to confirm the booking now."):
        assert Request(done).requests("confirm", entities), done


def test_a_verb_in_a_clause_that_describes_a_record_asks_for_nothing() -> None:
    """school-intent-00031 on 0fd2081 asked for a status "and the course named North
    Austinside Course, which starts on 2023-07-07", and its gold created a grade: "starts",
    of the course, was read as "start" (create)."""
    entities = {"course", "courses", "grade", "grades"}
    described = "Tell me the status of the course named Austin Course, which starts on May 7."
    assert not Request(described).requests("create", entities, describes=False)
    assert not Request("It is a course that opens in May.").requests("open", entities)
    assert Request("Please start a new grade for me.").requests("create", entities, describes=False)


def test_a_write_named_by_a_field_is_asked_for_by_its_state_not_the_field() -> None:
    """Movie at 822d671 kept 23 tasks whose gold set a booking's status for "I want to know
    if my booking status is active" or "Could you please confirm my booking status for the
    seat count of 40?": the model named the write `status_active_bookings`, and "status",
    taken for its verb, was said by every question about a status."""
    bookings = Table(
        name="bookings",
        columns=[
            Column(name="booking_id", type="integer"),
            Column(name="status", type="text"),
            Column(name="seat_count", type="integer"),
        ],
        primary_key=["booking_id"],
    )
    schema = Schema(tables=[bookings])
    entities = {"booking", "bookings"}
    activate = Tool(name="status_active_bookings", description="d", kind="write", run=["X"])
    confirm = Tool(name="status_confirmed_bookings", description="d", kind="write", run=["X"])
    assert operation_words(activate, {}, schema) == ["active"]
    assert operation_words(confirm, {}, schema) == ["confirmed"]
    asked = (
        "I want to know if my booking status is active. It's for a seat count of 31.",
        "Could you please confirm my booking status for the seat count of 40?",
        "The seat count is 2. Could you please confirm the current booking status?",
    )
    for question in asked:
        request = Request(question)
        assert not request.requests_any(["active"], entities), question
        assert not request.requests_any(["confirmed"], entities), question
    assert Request("Please confirm my booking for 6 seats.").requests("confirmed", entities)


def test_asking_how_to_do_it_asks_for_no_act() -> None:
    """Movie's gold activated a profile for "Hello. How can I activate my customer
    profile?" (movie-intent-00001 on 6acfe43): a way to do it asked for, not the act; so is
    whether the user may do it."""
    entities = {"customer", "customers", "profile"}
    for how in (
        "Hello. How can I activate my customer profile?",
        "Could you tell me how to activate my profile?",
        "How do I activate my profile?",
        # movie-intent-00015 on a9d6cdb, whose gold tried the withdrawal
        "Could you please tell me what I should do next to activate my profile?",
        "What do I need to do to activate my profile?",
        # finance-intent-00042 on 5cf74c2, whose gold tried the activation
        "Could you please tell me what I need to do to get my profile activated?",
        # finance-intent-00011 on 2054a46, whose gold failed the transfer
        "I just need to know if I can activate my profile.",
        "Please check whether we are allowed to activate my profile.",
        # finance-intent-00161 on 03eaeac, whose gold deactivated the account
        "I'm looking for a way to activate my profile.",
        "Is there an easy way to activate my profile?",
        # travel-intent-00035 on d7b1bec, whose gold tried the cancellation
        "Could you please let me know how I can activate my profile?",
        # ecommerce-intent-00061 on 8d65db4, whose gold tried the reduction
        "I wanted to ask if I can activate my profile.",
        # railway-intent-00025 on a4b9fc9, whose gold tried the refund
        "I just wanted to know if I can get an activation of my profile.",
        # railway-intent-00053 and 00046 on a4b9fc9, whose golds tried the refund
        "Let me know if it has been issued and if I can get an activation of my profile.",
        "I want to know the status of my profile, and if it can be activated.",
        # the way asked for after the act is said: travel-intent-00063 on dee4810 and
        # movie-intent-00051 on 9a0577e, whose golds tried the act
        "I want to activate my profile. How do I do that?",
        "Hello! I want to activate my profile. Could you please guide me on how to do this?",
        "I'd like to activate my profile; what do I need to do?",
        "I need to activate my profile. Can you walk me through the steps?",
    ):
        assert not Request(how).requests("activate", entities), how
    for done in (
        "Please activate my profile.",
        "How quickly can you activate my profile?",
        "I know what to do: please activate my profile.",
        "Could you let me know if you can activate my profile?",
        "Please activate my profile if I can still have it.",
        # railway-intent-00008: a polite request
        "I was just wondering if I could activate my profile.",
        "Please activate my profile, and tell me how it went.",
        "Please activate my profile. What is my new status?",
        "I know what to do to get it done: activate my profile.",
    ):
        assert Request(done).requests("activate", entities), done


def test_a_state_of_several_words_after_a_copula_describes_the_record() -> None:
    """finance-intent-00350 on c430db5, "I want to know if my card status is
    reported_stolen", whose gold reported the card stolen: "stolen" follows "reported", and
    the phrase follows "is"."""
    entities = {"card", "cards"}
    state = ["reported", "stolen"]
    for asked in (
        "I want to know if my card status is reported_stolen.",
        "I would like to know whether my card is still reported stolen.",
    ):
        assert not Request(asked).requests_any(state, entities), asked
    for act in (
        "Please set my card status to reported_stolen.",
        "My card is gone; mark it reported stolen.",
    ):
        assert Request(act).requests_any(state, entities), act


def test_an_amount_i_need_to_pay_asks_for_the_amount_not_the_payment() -> None:
    """finance-intent-00382 on c430db5, "tell me the amount I need to repay from my active
    loan", whose gold repaid it."""
    entities = {"loan", "loans"}
    for asked in (
        "Please, tell me the amount I need to repay from my active loan.",
        "What is the balance that I still have to repay on my loan?",
        "How much I would need to repay on my loan?",
    ):
        assert not Request(asked).requests("repay", entities), asked
    for act in (
        "I need to repay 50 on my loan.",
        "Tell me the amount I need to repay, then repay 50 of it.",
        "I have to repay my loan today.",
    ):
        assert Request(act).requests("repay", entities), act


def test_a_word_that_with_its_neighbour_names_a_column_asks_for_no_act() -> None:
    """medicine-intent-00095 on 61a5427, "I'd like to know my prescription refills used
    and the prescription expiry date", whose gold tried a refill: "refills used" is the
    column `refills_used`, not a refill asked for."""
    entities = {"prescription", "prescriptions"}
    fields = frozenset({"refills_used", "refills_allowed", "expiry_date"})
    for field in (
        "I'd like to know my prescription refills used and the prescription expiry date.",
        "How many refills allowed are left on my prescription?",
        # medicine-intent-00051 on b5cbf4f, whose gold refilled unasked
        "Book me an appointment. My prescription refill is allowed 76 times.",
    ):
        assert not Request(field).requests("refill", entities, fields=fields), field
        assert Request(field).requests("refill", entities), field  # the columns unknown
    for act in ("Please refill my prescription.", "I want my prescription refilled, used up."):
        assert Request(act).requests("refill", entities, fields=fields), act


def test_a_word_after_an_article_before_the_record_describes_it() -> None:
    """Basketball's gold completed a game for "I'm looking for a complete basketball game
    starting on February 20, 2024. Can you help me find it?": "a complete game" is a kind
    of game, not a game to complete. A noun after an article still asks for the act ("put a
    freeze on my card", "I want a refund for my ticket")."""
    entities = {"game", "games", "card", "cards", "ticket", "tickets"}
    for described in (
        "I'm looking for a complete basketball game starting on February 20, 2024.",
        "Can you show me the complete game list?",
    ):
        assert not Request(described).requests("complete", entities), described
    assert Request("I need to complete my game on 2022-06-22.").requests("complete", entities)
    assert Request("Please complete the game.").requests("complete", entities)
    assert Request("Can you put a freeze on my card?").requests("freeze", entities)
    assert Request("I want a refund for my ticket.").requests("refund", entities)


def test_information_each_and_fields_asked_about() -> None:
    request = Request("Lock my card. What is the daily transfer limit of each account?")
    assert request.asks_for_information and request.asks_for_each
    assert request.asks_about("daily_transfer_limit") and not request.asks_about("balance")
    assert not Request("Lock my card and move $5 to savings.").asks_for_information
    # a cue that is a noun asks nothing: ecommerce-intent-00011's "It's on my pending order
    # list. Can you help me create the order item?" was told two values
    said = "It's on my pending order list. Can you help me create the order item?"
    assert not Request(said).asks_for_information
    for asks in ("I'd like the list of my bookings.", "Lock my card and show me its status."):
        assert Request(asks).asks_for_information, asks
    # a relative word describes, a failed search asks nothing (ecommerce-intent-00018 and
    # -00030, each told a value); a question word opening a sentence still asks
    for said in ("Take 9 off my item whose quantity is 12.", "I can't find the order number."):
        assert not Request(said).asks_for_information, said
    assert Request("Freeze my card. When will it be unfrozen").asks_for_information
    # an act granted asks for the act (railway-intent-00018, "Could you please provide me with
    # a refund for my ticket for seat number 201?", was told the ticket's status)
    for said in ("Please provide me with a refund for my ticket.", "Give me a refund, please."):
        assert not Request(said).asks_for_information, said
    for asks in ("Please provide me with a list of my tickets.", "Give me the refund amount."):
        assert Request(asks).asks_for_information, asks
    # confirming a record asks for the act (movie-intent-00044 on 71aacdf, "I want to confirm
    # my booking seat count of 2", was told its status); confirming a fact asks
    assert not Request("I want to confirm my booking seat count of 2.").asks_for_information
    for asks in (
        "Please confirm that my card is locked.",
        "Can you confirm the card status?",
        "Lock my card. Can you confirm this?",  # medicine-intent-00037 on 277c846
    ):
        assert Request(asks).asks_for_information, asks
    left = Request("Tell me how much is left in checking.")
    assert left.asks_about("balance") and left.asks_about("remaining_balance")
    assert not left.asks_about("status")
    for said in (  # movie's, each of which got "Please tell me ..." appended again
        "Once the booking is made, I'd appreciate knowing the booking ID and status.",
        "Please book 7 seats. I want to be told the booking ID and the booking status.",
        "Book 8 seats for The Hobbit and I'd like to receive my booking id and status.",
    ):
        assert Request(said).asks_about("booking_status"), said


def test_field_names_and_entities() -> None:
    assert same_field("copies_left", "copies_available")
    assert not same_field("balance", "status")
    assert singular("categories") == "category" and singular("addresses") == "address"
    # school's courses and a status table: stripping "es" after an s had given cours, statu
    assert [singular(w) for w in ("courses", "statuses", "status", "movies", "matches")] == [
        "course",
        "status",
        "status",
        "movie",
        "match",
    ]
    assert entity_words("card_holders") == {"card", "holder", "holders"}


def test_a_field_named_by_the_operation_is_not_asked_about() -> None:
    assert names_operation("closed_on", ["close"])
    assert names_operation("frozen_at", ["freeze"]) == names_operation("frozen", ["freeze"])
    assert not names_operation("frozen_reason", ["freeze"])  # "reason" is a question
    assert not names_operation("balance", ["close"])


def test_a_leading_verb_is_the_operation_even_where_a_table_shares_it() -> None:
    schema = Schema(
        tables=[
            Table(
                name="transfers",
                columns=[Column(name="transfer_id", type="integer")],
                primary_key=["transfer_id"],
            )
        ]
    )
    move = Tool(name="transfer_balance", description="d", kind="write", run=["DELETE FROM t"])
    assert operation_words(move, {}, schema) == ["transfer", "balance"]
    with_balance = Schema(
        tables=[
            Table(
                name="accounts",
                columns=[
                    Column(name="account_id", type="integer"),
                    Column(name="max_balance", type="real"),
                ],
                primary_key=["account_id"],
            )
        ]
    )
    adjust = Tool(name="adjust_max_balance", description="d", kind="write", run=["DELETE FROM t"])
    assert operation_words(adjust, {}, with_balance) == ["adjust"]
    assert not Request("Please tell me my current max balance.").says_any(["adjust"])
    assert Request("Please top up my balance by 20.").says_any(["topup"])
    assert Request("Please change my max balance to 20.").says_any(["adjust"])
    assert not Request("Please increase my max balance.").says_any(["reduce"])
    # ecommerce-intent-00011: "I need to remove 10 from the quantity of my order item"
    assert Request("I need to remove 10 from the quantity of my item.").says_any(["decrease"])
    record = Tool(name="transfers", description="d", kind="write", run=["DELETE FROM t"])
    assert operation_words(record, {}, schema) == []


def test_someone_elses_records_are_told_from_the_users_own() -> None:
    """Finance's N=300 kept "I'd like to freeze my client's profile" and "create a loan
    for my client" (a client of the bank speaking for a client of their own); finance's
    users call their own record "my client profile"."""
    from toolscale.wording import third_person

    people = {"client", "account", "card"}
    for other, said in (
        ("I'd like to freeze my client's profile.", "my client"),
        ("I need to create a loan for my client. The amount is 20.", "my client"),
        ("I'd also like to know their current client annual income.", "their current client"),
        ("Please activate her card ending 5035.", "her card"),
        # travel-intent-00059 on 0651c04: the user spoken of
        ("Katrina Morris would like to book a hotel for herself.", "for herself"),
        ("I'm Katrina. She would also like to book a flight.", "She would also like"),
        # basketball-intent-00005 on 65cb0f1: a sentence that opens on a name and its wish
        (
            "Judith Lamb, our basketball service team, wants to suspend Lauren Lutz.",
            "Judith Lamb, our basketball service team, wants",
        ),
        ("Please help. Ann Lee would like to cancel.", "Ann Lee would like"),
    ):
        assert third_person(other, people) == said, other
    for mine in (
        "I want to update my client profile with my new email.",
        "Send 20 to her account, please.",
        "Freeze my cards and tell me their status.",
        "I'd like to book a hotel for myself, with a pool.",
        "My team wants to cancel the game.",
        "I'm booking. The Harbor Inn would like a deposit, I think?",
    ):
        assert third_person(mine, people) is None, mine
    # a teacher's students are the school's records the teacher deals with (school on
    # 8198d98); a client's client is still someone else's
    school = {"teacher", "student", "course"}
    assert third_person("Please enroll my student Pamela Dominguez.", school, "teacher") is None
    assert third_person("Please enroll my student Pamela.", school) == "my student"
    assert third_person("Create a loan for my client.", people, "client") == "my client"


def test_a_two_word_verb_asks_for_its_act() -> None:
    """Finance on 2054a46 rejected "I need to set up a loan for myself" whose gold made the
    loan: "set up" was read as neither word of a create."""
    entities = {"loan", "loans", "card", "cards"}
    for made in (
        "I need to set up a loan for myself.",
        "Setting up a card, please.",
        "Can I sign up for a card?",
    ):
        assert Request(made).requests("create", entities), made
    for other in ("I set the loan's limit up high.", "Please sign the loan form."):
        assert not Request(other).requests("create", entities), other


def test_a_fields_own_word_is_no_question() -> None:
    """Travel on b8ec214: "The check-in date is 2022-04-18. Can you help me with that?" was
    read as asking for the check-in date, its "check" a cue to be told."""
    said = "I'd like to move this hotel booking. The check-in date is 2022-04-18. Can you help?"
    assert not Request(said).asks_about("check_in_date")
    for asked in ("Please check the check-in date of my stay.", "What is my check-in date?"):
        assert Request(asked).asks_about("check_in_date"), asked


# Each: a request that asks for nothing though it holds a cue, the task it came from, and
# near misses that still ask.
_ASKS_NOTHING = [
    # basketball-intent-00019 on cb56dcd, told the status though nothing was asked
    (
        "Please tell the team to activate Gabriella Gallagher's player status.",
        (
            "Please tell me the status of Wayne Hughes.",
            "Tell us to whom the ticket was sold.",
            "Activate Wayne Hughes and tell the team status to me.",
        ),
    ),
    ("Tell my coach to suspend Wayne Hughes.", ()),
    # railway-intent-00027 on a4b9fc9: "... I know my email is christopher@icloud.com."
    (
        "Hi, can I cancel my ticket with seat number 445? I know my email is a@b.com.",
        (
            "Cancel my ticket. I want to know the status.",
            "Cancel my ticket and let me know.",
            "Cancel my ticket; I don't know its status, tell me.",
        ),
    ),
    # railway-intent-00003 on a4b9fc9: "... Please let me know if I need to fill out any
    # additional information.", told the status
    (
        "I want to activate my profile. Please let me know if I need to fill out a form.",
        (
            "Activate my profile and let me know if it is active.",
            "Activate my profile. Let me know if I need to sign again, and tell me its status.",
        ),
    ),
    # finance-intent-00005 on 5cf74c2: "report" is the act on the card, told its status
    (
        "I need to report my frozen card. The balance is 0 and the card is frozen.",
        (
            "Report my card stolen and report back its status.",
            "Please report the balance of my account.",
            "Report my card as stolen. What is its status now?",
        ),
    ),
]


@pytest.mark.parametrize(("said", "still_asking"), _ASKS_NOTHING)
def test_a_cue_that_asks_for_no_value_is_no_question(said: str, still_asking: tuple) -> None:
    assert not Request(said).asks_for_information
    for asked in still_asking:
        assert Request(asked).asks_for_information, asked


def test_a_record_named_by_its_name_is_no_question_about_a_name() -> None:
    """basketball on 9b9d975: "Please suspend the player named Sean Woods and provide the
    player status." was untold_value of the team's name."""
    said = "Please suspend the player named Sean Woods and provide the player status."
    assert not Request(said).asks_about("name") and Request(said).asks_about("status")
    assert not Request("Tell me the status of the team called Hawks.").asks_about("name")
    # "suspend my player whose name is Wayne Hughes. Please tell me if ... is suspended."
    whose = "Tell me the status of my player whose name is Wayne Hughes."
    assert not Request(whose).asks_about("name") and Request(whose).asks_about("status")
    assert not Request("Suspend my player whose name is Wayne Hughes.").asks_about("name")
    for asked in (
        "Please tell me the name of my team.",
        "What is the team's name?",
        "Whose name is on the ticket?",
        "Please tell me whose name is on the ticket.",
    ):
        assert Request(asked).asks_about("name"), asked


def test_the_assistants_own_field_is_no_question_about_a_record() -> None:
    """railway-intent-00036 on a4b9fc9: "I want to activate my passenger profile. Could you
    please tell me your status?" was told the passenger's status."""
    said = "I want to activate my passenger profile. Could you please tell me your status?"
    assert not Request(said).asks_for_information and not Request(said).asks_about("status")
    for asked in (
        "Could you please tell me my status?",
        "Could you check your records and tell me the status of my ticket?",
    ):
        assert Request(asked).asks_about("status"), asked


def test_turning_a_thing_on_or_off_asks_to_activate_or_deactivate_it() -> None:
    """weather-intent-00016 on aedf9df: "Can you turn on the New Jonathan Station?" was
    unasked_write of activate_station."""
    assert Request("Can you turn on the New Jonathan Station?").requests("activate", set())
    assert Request("Please switch off my station.").requests("deactivate", set())
    assert not Request("Please turn the page.").says("activate")


def test_a_check_in_date_asks_nothing() -> None:
    """travel-intent-00014 on d7b1bec: "I want to cancel my hotel booking whose check-in
    date is 2025-05-23." was read as asking for its check-in date (`untold_value`)."""
    said = Request("I want to cancel my hotel booking whose check-in date is 2025-05-23.")
    assert not said.asks_for_information
    assert Request("Please check my check-in date.").asks_for_information


def test_a_field_is_asked_after_a_cue_not_as_what_another_is_for() -> None:
    """travel-intent-00000 on d7b1bec: "the fee for those bags" asks the fee alone."""
    request = Request("Add 16 checked bags to my booking. I need to know the fee for those bags.")
    assert request.names_as_asked("bag_fees")
    assert not request.names_as_asked("checked_bags")
    assert Request("Add 2 bags and tell me how many bags I have now.").names_as_asked("bags")
    assert not Request("Add 2 bags and tell me the fee.").names_as_asked("bags")
    assert not Request("I want to add checked bags and check the fees.").names_as_asked("bags")
    asked = Request("I need two numbers: the total balance and how many active cards I have.")
    assert asked.names_as_asked("total_balance") and asked.names_as_asked("active_cards")
    # travel-intent-00026 on d7b1bec: the prices of the bags, not their number
    prices = Request("Add checked bags to my booking and tell me the prices of these bags.")
    assert prices.names_as_asked("bag_fees") and not prices.names_as_asked("checked_bags")
    assert Request("Tell me the number of my checked bags.").names_as_asked("checked_bags")
    assert not Request("Tell me the prices of these checked bags.").names_as_asked("bags")
    # the fake model's "Please tell me the due on, returned.": "on" is a field's own word
    assert Request("Please tell me the due on, returned.").names_as_asked("returned")


def test_a_record_is_called_by_its_whole_name_first() -> None:
    """The intent generator words a record by its first name here, the facts stage reads
    every one: a person's first and last name, then a name or title, never a username."""
    person = {"first_name": "Kari", "last_name": "Spencer", "username": "kari9", "name": ""}
    assert record_names(person) == ["Kari Spencer"]
    film = {"title": "Alien", "name": "Alien (1979)", "director_name": "Ridley Scott"}
    assert record_names(film) == ["Alien (1979)", "Alien", "Ridley Scott"]
    assert record_names({"first_name": "Kari", "seats": 2}) == ["Kari"]
    assert record_names({"seats": 2}) == []


def test_seeing_a_film_asks_nothing() -> None:
    """movie-intent-00047 on 9a0577e: "I want to see it on February 17, 2025. Can you please
    book it for me?" was told the booking's id and status, on the cue "see"."""
    assert not Request("I want to see it on February 17. Can you book it?").asks_for_information
    assert not Request("We'd love to see the movie together.").asks_for_information
    assert Request("I want to see my bookings.").asks_for_information
    assert Request("Can I see it?").asks_for_information


def test_a_noun_takes_the_article_its_sound_needs() -> None:
    from toolscale.wording import with_article

    said = [with_article(n) for n in ("appointment", "order", "user", "unit", "hour", "ticket")]
    assert said == ["an appointment", "an order", "a user", "a unit", "an hour", "a ticket"]


@pytest.mark.parametrize(
    ("fact", "placeholder"),
    [
        # finance-intent-00007 on 203d876
        ("The account balance is $X", True),
        ("The balance is $X,XXX.XX.", True),
        ("The fee is $0.XX", True),
        ("My card ends in XXXX.", True),
        ("My loan id is L-XXXX.", True),
        ("My loan id is [loan id].", True),
        ("The amount is <amount>.", True),
        ("The amount is {amount}.", True),
        ("My account number is ___.", True),
        # from the review of 203d876..90756d3: letters, notes and words that hold an X
        ("My seat row is X.", False),
        ("The class is X", False),
        ("The amount of x is 5.", False),
        ("The subject was [URGENT] refund.", False),
        ("My username is cool___guy.", False),
        ("I have 2 X-ray appointments.", False),
        ("My card network is Visa.", False),
    ],
)
def test_a_placeholder_for_a_value_is_no_fact(fact: str, placeholder: bool) -> None:
    assert states_no_fact(fact) is placeholder


@pytest.mark.parametrize(
    ("fact", "wish"),
    [
        # ecommerce-intent-00170 on c25a294
        ("I'm curious to know the current status of my order as it is now", True),
        ("I am wondering if my order has shipped.", True),
        ("I\u2019m eager to find out when it arrives.", True),
        ("I am interested to know the total.", True),
        ("I wonder what my balance is.", True),
        # a past curiosity or an interest in a thing is a statement, not a question
        ("I was curious about the Smartwatch, so I ordered two.", False),
        ("I'm interested in the Smartwatch.", False),
        ("My order of Smartwatches is shipped.", False),
    ],
)
def test_curiosity_about_a_value_is_no_fact(fact: str, wish: bool) -> None:
    assert states_no_fact(fact) is wish
