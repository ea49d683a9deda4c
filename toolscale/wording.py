"""How a request says an operation, a field or an entity: the words the fidelity stages look
for in an instruction. Deterministic and deliberately small: a crude stem, a thesaurus of
the verbs and nouns tool-use requests share across domains, and the cues that mark a
request for information. In core so that a generator can word a request the way the
validators will read it (verbalize's repairs); what wording cannot settle is the judge's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache

from toolscale.matching import tokens
from toolscale.schema import Schema
from toolscale.tool import Tool

# Words that name no operation: verbs every tool could use, and filler of tool names.
GENERIC = frozenset(
    [
        "set",
        "get",
        "do",
        "make",
        "by",
        "for",
        "of",
        "to",
        "the",
        "a",
        "an",
        "and",
        "or",
        "in",
        "on",
        "at",
        "with",
        "from",
        "new",
        "my",
        "info",
        "details",
        "data",
        "record",
        "records",
        "row",
        "rows",
        "item",
        "items",
        "one",
    ]
)

# Each group: words a person uses for the same operation.
OPERATIONS: tuple[frozenset[str], ...] = tuple(
    frozenset(group.split())
    for group in (
        "transfer move send wire shift pay payment transaction",
        "withdraw take debit",
        "freeze frozen block blocked lock locked suspend suspended hold stolen lost",
        "unfreeze unblock unlock reactivate activate active reopen resume restore enable "
        "turnon switchon",
        "close closed shut terminate deactivate inactive turnoff switchoff",
        "cancel cancelled canceled cancellation void revoke",
        "open create new issue add apply register book make start place request schedule "
        "enroll order reserve setup signup",
        "repay pay payment settle payoff",
        "update change modify edit correct replace adjust",
        "topup top deposit credit increase raise add",  # "add 12 to my order"
        "reduce decrease lower subtract remove",  # "remove 10 from the quantity"
        "delete remove drop",
        "refund return",
        "approve approved accept accepted confirm confirmed",
        "reject rejected decline declined deny denied",
    )
)
# Each group: words a person uses for the same field.
FIELDS: tuple[frozenset[str], ...] = tuple(
    frozenset(group.split())
    for group in (
        "balance left remaining available funds money",
        # travel-intent-00026 on d7b1bec: "receive the prices of these bags", told bag_fees
        "amount much sum total cost price fee charge",
        "status state",
        "limit cap maximum",
        "count many number",
        "address live living moved",
        "email mail",
        "phone telephone mobile",
    )
)
FIELD_WORDS = frozenset(w for group in FIELDS for w in group)

# A request for information: a question, or a verb asking to be told or shown.
INFO_CUES = frozenset(
    [
        "what",
        "which",
        "how",
        "when",
        "where",
        "who",
        "whom",
        "whose",
        "whether",
        "tell",
        "show",
        "see",
        "know",
        "check",
        "confirm",
        "list",
        "give",
        "provide",
        "read",
        "report",
        "find",
        "look",
        "share",
        "display",
        "verify",
        # movie's "I'd appreciate knowing the booking ID", "I want to be told the booking
        # status", "receive my booking id": each got the question appended again
        "knowing",
        "told",
        "receive",
        "inform",
        "informed",
    ]
)
EACH_CUES = frozenset(["each", "every", "all", "both"])
# a row picked by order, not by a value the user says ("my latest transfer")
SUPERLATIVES = frozenset(
    [
        "latest",
        "last",
        "newest",
        "recent",
        "oldest",
        "earliest",
        "first",
        "largest",
        "biggest",
        "highest",
        "smallest",
        "lowest",
        "most",
        "least",
    ]
)

# forms that describe a record when an entity follows ("closed account", "frozen card",
# "pending transfer", "active loan"); "close account 7" and "freeze card 9" are requests
_ATTRIBUTIVE = ("ed", "ing", "en", "ive")
_DOUBLED = re.compile(r"([bcdfgklmnprstz])\1$")


@cache  # pure, and the same few hundred words are stemmed for every task
def stem(word: str) -> str:
    """A crude stem: `closed`, `close` and `closing` meet; `cancelled` meets `cancel`."""
    w = word.casefold()
    for suffix in ("ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "s", "e", "d"):
        # a bare "d" ends a past only after an "e" ("used"): "refund" is no "refun"
        if suffix == "d" and not w.endswith("ed"):
            continue
        if len(w) - len(suffix) >= 3 and w.endswith(suffix):
            w = w[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            break
    return _DOUBLED.sub(r"\1", w)


def words(name: str) -> list[str]:
    """The words of an identifier or phrase: `from_balance` → from, balance."""
    return [t for t in tokens(name.replace("_", " ")) if not t.isdigit()]


@cache
def _stems(group: frozenset[str]) -> frozenset[str]:
    return frozenset(stem(g) for g in group)


@cache
def _variants(word: str, groups: tuple[frozenset[str], ...]) -> frozenset[str]:
    found = {stem(word)}
    for group in groups:
        if word in group or stem(word) in _stems(group):
            found |= _stems(group)
    return frozenset(found)


# a template's blank: "[Your Name]", "<card id>", "{status}", "xxxxxx", "(provide the date)"
PLACEHOLDER = re.compile(
    r"\[[^\]]{1,40}\]|<[a-z_ ]{1,40}>|\{[^}]{1,40}\}|\b[xX]{3,}\b|_{3,}|\?{3,}|\bTBD\b"
    r"|\((?:provide|insert|enter|fill in|add)\b[^)]{0,40}\)"
)
_AFTER = re.compile(
    r"\b(?:after (?:the|this|that|it|its|my|doing|making|completing)\b|afterwards?\b|"
    r"updated\b|resulting\b|once (?:it|that|this) (?:is|has been) done\b|"
    # ecommerce-intent-00086 on 8d65db4: "Could you please provide me with the new
    # address?" of a refused address change
    r"\b(?:tell|provide|give|show|send)\s+me\s+(?:with\s+)?(?:the|my)\s+new\b)",
    re.I,
)
_ASKING = re.compile(
    r"\b(?:know|tell|told|show|see|confirm|what|which|how much|how many|provide|give)\b", re.I
)


# "Swells, can you top up my balance?" is a request to act, not a question
_ASKS_TO_ACT = re.compile(
    r"^\W*(?:\w+,\s*)?(?:please\s+)?(?:can|could|would|will)\s+(?:you|i)\b|^\W*please\b", re.I
)
# a verb that also means to check a fact, and what follows it when it does: travel's gold
# confirmed a booking for "I want to confirm that the hotel booking I made is still active"
_ARTICLES = {"a", "an", "the"}
# "how can I activate ...", "what I should do next to withdraw ...": a way asked for; and
# travel-intent-00035 on d7b1bec's "let me know how I can cancel the hotel booking"
# "if I can get a refund": the weak verb before the act's own word
_GETTING = r"(?: (?:get|have|receive|obtain)(?: a| an| my| the)?)?"
_HOW = re.compile(
    r"\bhow (?:(?:can|do|could|would|should|may) (?:i|we)|(?:i|we) (?:can|could|should|may)|to)$"
    r"|\bwhat (?:\w+ ){1,4}do (?:next |first |now )?to$"
    # finance-intent-00042 on 5cf74c2: "tell me what I need to do to get my account balance
    # activated", whose gold tried the activation
    r"|\b(?:need|have|must|should) to do (?:next |first |now )?to (?:get|have)(?: \w+){1,3}$"
    # finance's "I just need to know if I can fail the pending transfer": whether it may
    # be done, asked to be told by the one who would do it ("if you can" is a polite
    # request, and so is railway's "I was just wondering if I could cancel my ticket")
    # and ecommerce-intent-00061 on 8d65db4's "I wanted to ask if I can reduce 37 from ..."
    r"|\b(?:know|check|see|find out|tell me|sure|confirm|ask) (?:\w+ )?(?:if|whether) "
    r"(?:i|we) "
    r"(?:can|could|may|am able to|am allowed to|are allowed to)"
    # railway-intent-00025 on a4b9fc9: "I just wanted to know if I can get a refund on my
    # ticket", whose gold tried the refund
    rf"{_GETTING}$"
    # railway-intent-00053 on a4b9fc9, "let me know if the ticket has been issued and if I
    # can get a refund if necessary", and 00046, "I want to know the status of my ticket
    # ... and if it can be refunded", whose golds tried the refund: a second question
    rf"|\band (?:if|whether) (?:i|we) (?:can|could|may){_GETTING}$"
    r"|\b(?:if|whether) (?:it|this|that|they|my \w+) (?:can|could|may) be$"
    # finance's "I'm looking for a way to deactivate my active account"
    r"|\b(?:a|an|any|the|some) (?:\w+ )?way (?:to|i can|we can)$"
    # finance-intent-00382 on c430db5: "tell me the amount I need to repay from my active
    # loan", whose gold repaid it: a clause that says which amount is asked, no act
    r"|\b(?:the|what|how much|how many) (?:\w+ ){0,2}?(?:that )?(?:i|we) (?:still )?"
    r"(?:need|have|must|should|ought|would need|would have) to$"
)
# the way to an act said before asked for after it: travel-intent-00063 on dee4810, "I
# want to move my hotel booking ... to Martinez, Howard and Le. How do I do that?";
# movie-intent-00051 on 9a0577e, "I want to top up my loyalty points by 518 points. Could
# you please guide me on how to do this?"
_HOW_THAT = re.compile(
    r"\bhow (?:(?:can|do|could|would|should|may) (?:i|we) |(?:i|we) (?:can|could|should|may) "
    r"|to )?(?:do|go about|proceed with|manage) (?:that|this|it)\b"
    r"|\bwhat (?:do|should|must|would) (?:i|we) (?:need to |have to )?do\b"
    r"|\b(?:guide|walk|take|talk) me (?:on|through) (?:how|the steps|the process|it|this|that)\b"
)
_VERIFY = {"confirm", "verify"}
_CLAUSE = {"that", "whether", "if", "what", "when", "how", "which"}
# "if my profile is frozen", "if my transfer has failed", "has been closed": a state
_COPULAS = {"is", "are", "was", "were", "isn't", "aren't", "has", "have", "had", "been"}
_COPULAS |= {"s", "re"}  # "if it's failed": tokens split "it's" into "it", "s"
_STILL = {"currently", "still", "already", "now", "not", "really", "actually"}
# words after a greeting that call nobody by name ("Hi there", "Hello team", "Hi, thanks")
_NO_NAME = (
    "there|team|support|all|everyone|folks|guys|again|friend|assistant|agent|sir|madam|you|"
    "good|me|dr|mr|mrs|ms|prof|please|thanks|thank|sorry|yes|no|ok|okay|great"
)
_ASSISTANT = re.compile(
    r"\b(?:I'?m here to help|I am here to help|how (?:can|may) I (?:help|assist)|"
    r"if you have any (?:other )?questions|let me know if you need|"
    r"need (?:any )?further assistance|(?:happy|ready|glad) to help you|glad to assist|"
    # finance-intent-00008 on 5cf74c2: "Thank you for reaching out to us.", a company's
    # answer to a customer who wrote first
    r"thank(?:s| you) for (?:reaching out to|contacting|writing to|getting in touch with) us\b|"
    # medicine-intent-00121 on df891fc: "I'm sorry to hear that my appointment is on
    # February 24th.", said to someone who wrote first
    r"(?:I'?m|I am) (?:so |very |really )?sorry to hear\b|"
    # basketball-intent-00042 on cb56dcd: "Please let me know if you're ready. I'm ready to
    # help you activate Holly Moody."
    r"let me know if you(?:'re| are) ready\b|"
    # finance-intent-00130 on 8a34956: "I'm Alogan, the finance service's assistant."
    r"(?:I'?m|I am) (?:[A-Z][\w.-]*, )?(?:a|an|your|the) [\w' -]{0,30}assistant\b|"
    # finance-intent-00386 on c430db5: "I'm Sabrina from your finance service."
    r"(?:I'?m|I am) [A-Z][\w.-]* from your [\w' -]{0,30}"
    r"(?:service|support|team|bank|desk|department|company)\b|"
    r"I can help you\b|(?:can|may) I help\b|anything else I can (?:help|do|assist)\b|"
    # finance-intent-00535 on 3b9f36e: "Do you have any questions or updates you'd like to
    # share?", the agent's closing line
    r"do you have any (?:other |more |further )?questions\b|you(?:'d| would) like to share\b|"
    # finance's "I'm sorry, but I can't help you close your inactive account without
    # knowing the current balance": the reply to a request, not the request
    r"I (?:can'?t|cannot|can not|am unable to|'m unable to) (?:help|assist) you\b|"
    # medicine-intent-00051 on 277c846: "I'm sorry, but I can't assist with that. Could you
    # please provide me with the correct values for the appointment booking request?"
    r"I (?:can'?t|cannot|can not|am unable to|'m unable to) (?:help|assist) with (?:that|this)\b|"
    r"(?:help|assist) you (?:to )?\w+ your\b|"
    # school's "Sure, Katherine! I'd be happy to activate the course ...": a reply, and the
    # customer's message is the first one
    r"(?:^|(?<=[.!?] ))(?:sure|certainly|absolutely)(?:,\s*[a-z]+)?\s*[,!]|"
    r"I'?d be (?:happy|glad|delighted) to (?:help|assist)\b|"
    # railway's "I noticed you're trying to deactivate your passenger account"
    r"I (?:noticed|notice|see|understand) (?:that )?you(?:'re| are)\b|"
    # an offer to act on the customer's record: movie's "Can I confirm your booking with 9
    # seats? I'd like to know the status of your booking."
    r"(?:can|may|shall) I (?!ask |get |have |bother |trouble )\w+ your\b|"
    # ecommerce's "Sure, I'll suspend your account ... and let you know the status"
    r"I(?:'ll| will) \w+ your\b|"
    # not a customer's "I just wanted to let you know that my email is ..." (finance on
    # bfbcde5: 2 of 21 drafts)
    r"(?<!\bto )let you know\b|"
    # ecommerce on 2f77ff7: "I wanted to let you know that your status has been updated to
    # 'active'. It's all set up now. Thanks for your patience.": the agent's report
    r"thank(?:s| you) for your (?:patience|understanding|business)\b|"
    r"\byour (?:[\w-]+ ){0,2}(?:has|have) (?:now )?been (?:successfully )?(?:updated|changed|"
    r"activated|deactivated|created|cancell?ed|closed|processed|completed|confirmed|"
    r"suspended|moved|set|frozen|unfrozen|reactivated|added|removed)\b|"
    r"what(?:'s| is) your (?:email|name|account|phone|card|loan)|"
    # weather-intent-00061 on 706f9af: "To create the watch, please provide your email and
    # region's name": the agent asks the customer who they are
    r"\b(?:provide|give|send|share|confirm|tell)(?: me| us)?(?: with)? your (?:full |e-?mail )?"
    r"(?:e-?mail|name|account|id|phone|details|information)\b|"
    r"tell the (?:customer|client|user)\b|"
    # weather's "As an assistant, I am unable to create a reading ...": the reply's voice
    r"\bas (?:an?|your) (?:[\w-]+ ){0,2}assistant(?=\s*[,.;:!?]|\s+I\b)|"
    # weather's "Please inform the assistant to cancel ...", "... and tell the assistant the
    # alert id": a narrator's note to whoever plays the customer, not a customer's words
    # ... or "I am telling the assistant that I want to know the account balance" (finance-
    # intent-00060 on 3adc017)
    r"(?:inform|tell|ask|instruct|remind)(?:ing)? the (?:ai |virtual )?assistant\b|"
    # ... or who plays whom (school-intent-00058 on 920fa98: "I'm Erin Stafford, the school
    # service teacher, and you're the assistant.")
    r"\byou(?:['’]re| are) the (?:ai |virtual )?assistant\b|"
    # ... or what the assistant will do: basketball-intent-00017 on 65cb0f1, "The assistant
    # will provide me with the ticket ID and status"; 00022, "The assistant will notify you"
    r"\bthe (?:ai |virtual )?assistant (?:will|would|should|shall|is going to|can)\b|"
    r"\bnotify you\b|"
    # an offer to the customer: travel's "Hello! Are you ready to deactivate your customer
    # profile?" asked nothing of the assistant
    r"are you ready to|would you like (?:me )?to|do you want (?:me )?to|"
    # medicine on fe97d36: "Please tell me what appointment you would like to move to Dr.
    # Anna Lynch"
    r"\bwhat (?:\w+ )?you would like to\b|"
    # ecommerce-intent-00035 on 8d65db4: "Can you please let me know if you want to place
    # an order?", whose gold made one
    # finance-intent-00498 on 2a7fb38: "Please let me know if you'd like to update the
    # status of my active card ... to reported_stolen", whose gold reported it
    r"if you(?: want| would like|'d like| wish) to\b|"
    # a greeting to the customer by their email: movie's "Hello there, mpeterson@outlook.com!
    # Can you help me activate a booking" (a person says who they are, "I'm ...")
    r"(?:^|(?<=[.!?] ))(?:hi|hello|hey|dear|welcome)(?: there)?,? [\w.+-]+@[\w-]+\.\w[\w.]*|"
    # ... or by a name: basketball-intent-00048 on 277c846, "Hey joyce, I need to move
    # Andrea Lang's contract" from joyce@hotmail.com; the customer knows no agent's name
    # ... or by a record's name of words and numbers: medicine on fe97d36, "Hi Pillbox 2, I
    # need to move the prescription ... to Pillbox 2"
    rf"(?:^|(?<=[.!?] ))(?:hi|hello|hey|dear)\s+(?!(?:{_NO_NAME})\b)"
    r"[a-z]+(?:(?: [a-z]+)? \d+)?"
    # (weather-intent-00143 on 6accfa9: "Hi jhardy. I'd like to move ...")
    r"\s*(?:[,!]|\.(?=\s|$))|"
    # ... or by a handle of letters and digits (weather-intent-00161 on 211cc49: "Hello,
    # Catherine49! I wanted to update my email to catherine49@example.net")
    r"(?:^|(?<=[.!?] ))(?:hi|hello|hey|dear),?\s+[a-z]+\d+\s*[,!.]|"
    # ... or, after a comma, by a capitalised name or handle: movie-intent-00028 on 3d6f8ed,
    # "Hello there, JRoman. I just wanted to check"; railway-intent-00006 on de87116,
    # "Hello, Train C. I want to book a ticket"
    rf"(?:^|(?<=[.!?] ))(?:hi|hello|hey|dear)(?: there)?,\s+(?!(?:{_NO_NAME}|I)\b)"
    r"(?-i:[A-Z][A-Za-z]*(?: [A-Z][A-Za-z\d]*){0,2})"
    r"\s*(?:[,!]|\.(?=\s|$))|"
    r"your (?:new |current )?email (?:address )?is)",
    re.I,
)
# "activate her card", "tell me their current annual income": the records of someone
# other than the one who asks; "a loan for my client": a customer's client is someone else
_THIRD_PERSON = re.compile(r"\b(?:her|his|their)\s+(\w+)(?:\s+(\w+))?", re.I)
# the kinds of record that are a person: their name is what the user calls themselves
PEOPLE = (
    *("client", "customer", "patient", "passenger", "student", "member", "user", "guest"),
    *("traveler", "traveller", "subscriber", "tenant", "buyer", "applicant", "rider", "diner"),
)
# "a loan for my client", "close my client's profile"; not "my client profile" (finance calls
# the user a client: their own record)
_MY_PERSON = re.compile(
    r"\bmy\s+(client|customer|patient|passenger|student|member|user)s?\b"
    r"(?!\s+(?:profile|account|record|details|email|id|information|info|data|number|name|"
    r"status)\b)",
    re.I,
)


# a column that counts no remainder: medicine's users said "I've only got 44 refills left"
# of refills_allowed and asked "how many refills I have left" to be told refills_used
NOT_LEFT = re.compile(
    r"(?:^|_)(?:used|allowed|limit|max|maximum|total|capacity|spent|taken|consumed|principal|"
    r"original|initial)(?:_|$)",
    re.I,
)
LEFT_WORDS = frozenset({"left", "remaining", "remain", "remains"})
# a column word that counts what is taken of a row ("tickets_sold", "seats_booked"): a new
# row has taken nothing yet, and what is taken stays within the most there may be
COUNTERS = ("sold", "used", "booked", "taken", "enrolled", "redeemed", "reserved", "filled")
_SAID_LEFT = re.compile(r"\$?(\d[\d,]*(?:\.\d+)?)\s+(?:[a-z]+\s+){0,2}?(?:left|remaining)\b", re.I)


def said_left(text: str) -> list[tuple[float, str]]:
    """Each number the text says is what is left ("44 refills left"), with its words."""
    return [(float(m.group(1).replace(",", "")), m.group()) for m in _SAID_LEFT.finditer(text)]


def asks_left_of_count(text: str, field: str) -> str | None:
    """The sentence that asks what is left of the thing `field` counts, where `field` counts
    something else ("how many refills I have left" of refills_used), or None. A sentence
    that says the count's own word ("how many refills I have used") asks for it."""
    named = words(field)
    counts = {w for w in named if NOT_LEFT.fullmatch(w)}
    thing = set(named) - counts - GENERIC
    if not counts or not thing:
        return None
    for sentence in sentences(text):
        said = set(tokens(sentence))
        said |= {singular(w) for w in said}
        left = said & LEFT_WORDS or _HOW_MANY_HAVE.search(sentence)
        if left and said & INFO_CUES and thing & said and not counts & said:
            return sentence.strip()
    return None


# "how many refills I currently have": what is left, as much as "how many are left"
# (medicine-intent-00061 on 277c846, told refills_used)
_HOW_MANY_HAVE = re.compile(
    r"\bhow many (?:\w+ ){1,3}(?:do )?(?:i|we) (?:currently |still |now )?(?:have|got)\b", re.I
)


# the request told about its user instead of by them: ecommerce's "The customer wants to
# know the order item quantity" (a brief's words, kept verified); finance-intent-00010 on
# 7b689c3: "Margaret Hughes, the client, says to the assistant, 'I want to close ...'"
_NARRATED = re.compile(
    r"\bthe\s+(\w+)\s*,?\s+(?:wants|would like|needs|wishes|asks|is asking|requests|expects"
    r"|says|said|tells|writes)\b",
    re.I,
)


_POINTS_AT = re.compile(
    r"\b(?:(?:form|details|information|info|list|table|data|fields?|document)\s+(?:below|above)"
    r"|as (?:indicated|shown|listed|given|described|stated) (?:below|above)"
    r"|see (?:below|above|attached)"
    r"|(?:attached|enclosed) (?:form|file|document|details|screenshot)"
    r"|as follows\W*$)",
    re.I,
)


# medicine-intent-00102 on c778e9c opened "Brady. I'd like to set an appointment ...": one
# word, a doctor's last name, standing as a sentence that belongs to nothing said
# a name's letters may be any script's: finance-intent-00323 on c430db5 opened "Velásquez."
_LONE_OPENING = re.compile(r"^\W*((?=[A-ZÀ-ÖØ-Þ])[^\W\d_][^\W\d_A-ZÀ-ÖØ-Þ]+)[.!]\s")
_INTERJECTIONS = frozenset(
    {
        "hi",
        "hello",
        "hey",
        "greetings",
        "thanks",
        "okay",
        "ok",
        "yes",
        "sure",
        "please",
        "morning",
        "afternoon",
        "evening",
        "sorry",
        "well",
        "help",
        "urgent",
        "hiya",
        "howdy",
        "alright",
        "right",
        "so",
        "um",
        "oh",
        "question",
        "update",
        "important",
        "listen",
    }
)


# a "known fact" that is a wish or a question is what the user asks, not what they know
# (basketball's "I want to know the status of Nathan Wood's player", "Crystal Hatfield is
# currently active or not", "I'd like to know the current game status"): the user
# simulator would repeat it as something known
_NO_FACT = re.compile(
    r"^\s*(?:I\s+(?:want|need|would like|wish|am asking)|I['’]d like|please|can you|could you)\b"
    # ... or curiosity (ecommerce-intent-00170 on c25a294: "I'm curious to know the current
    # status of my order as it is now"): what the user asks, said of themselves
    r"|^\s*I(?:\s+am|['’]m)\s+(?:curious|wondering|eager to (?:know|learn|find out))\b"
    r"|^\s*I(?:\s+am|['’]m)\s+interested\s+(?:to (?:know|learn)|in (?:knowing|learning))\b"
    r"|^\s*I\s+wonder\b"
    # ... or a wish after a fact (school-intent-00009 on 920fa98: "I am the teacher and I
    # want to create a grade record for a specific course enrollment.")
    r"|\b(?:and|so)\s+I\s+(?:want|need|would like|wish)\s+to\b"
    # school-intent-00027 on 920fa98: "I will need the grade id and the grade status to
    # confirm the record creation"
    r"|^\s*I\s+(?:will|would|shall)\s+need\b"
    r"|\?\s*$|\bor not\b"
    # and a verdict on a value is what the assistant finds out, not what the user knows
    # (movie's "June 15 is a valid date", "2 seats is a reasonable number")
    r"|\b(?:is|are) (?:a |an )?(?:valid|invalid|reasonable|acceptable|correct|allowed)\b"
    # and what the user does not know is no fact (ecommerce's "The return id is unknown")
    r"|\b(?:is|are) (?:still )?(?:unknown|not known|unclear|to be determined|tbd|n/a)\b"
    # school-intent-00019 on 920fa98: "The current enrollment status cannot be determined
    # here as it has not occurred"
    r"|\bcannot be (?:determined|known|found|confirmed)\b"
    # weather's "My reading id is not specified"
    r"|\b(?:is|are) (?:not (?:specified|given|provided|set)|unspecified)\b"
    # and what the reply will hold is no fact (finance-intent-00032 on 5cf74c2: "The card
    # ID and status will be provided in the response.")
    r"|\bwill be (?:provided|given|sent|told|shown|returned|confirmed)\b"
    # and a line about the talk itself (ecommerce-intent-00035 on 05f674d: "I'm not asking
    # for help or greeting you by name."): what the user knows is of their records
    r"|\b(?:greet(?:ing)?|asking for help)\b|\byou\b"
    # weather-intent-00153 on 211cc49: "The email for the assistant is tiffany@icloud.com."
    r"|\bthe (?:ai |virtual )?assistant\b"
    # and a line about the task it is in (weather-intent-00012 on 8a86ecf: "The region North
    # Pole is a fictional location for the purpose of this instruction.")
    r"|\bfictional\b|\bthis (?:instruction|task|scenario|exercise|conversation)\b"
    # and what ought to be is a wish (weather-intent-00049 on 8a86ecf: "The reading id must
    # be sent to the customer"; medicine's "The appointment status should be pending")
    r"|\b(?:must|should|needs? to|has to|have to) be\b"
    # and how the user feels about a value is no value (medicine-intent-00135 on db36aec:
    # "The status of the appointment is important to me")
    r"|\b(?:important|urgent|matters?|crucial|essential) (?:to|for) (?:me|us)\b"
    # and a line that names a thing as itself (weather-intent-00102 on 5e5ec77: "The alert
    # id will be the alert id")
    r"|^\s*(?:the |my |our )?(?P<same>\w[\w' ]*?) (?:is|are|was|were|will be) "
    r"(?:the |my |our )?(?P=same)\s*[.!]?\s*$"
    # ... or by its own field (weather-intent-00162 on a310e34: "Richardtown Station's name is
    # Richardtown Station")
    r"|^\s*(?:the |my |our )?(?P<own>\w[\w ]*?)['’]s (?:\w+ ){1,2}(?:is|are|was|were) "
    r"(?:the |my |our )?(?P=own)\s*[.!]?\s*$"
    # and a placeholder is no value (finance-intent-00007 on 203d876: "The account balance
    # is $X"; "[amount]", "<id>", "{balance}", "___")
    r"|(?-i:\$[\dX,.]*X[\dX,.]*|\bX{2,}(?:[,.]X+)*\b|\b[A-Z]+-X{2,}\b)"
    r"|(?-i:\[[a-z]+(?:[ _][a-z]+)*\]|<[a-z]+(?:[ _][a-z]+)*>)|\{\w+\}|(?<!\w)_{3,}(?!\w)",
    re.I,
)


def states_no_fact(fact: str) -> bool:
    """Whether a "known fact" says nothing the user knows of their records: a wish, a
    question, a verdict, an unknown, what the reply will hold or a line about the talk. The
    user simulator would repeat it as known; generation leaves it out, the facts stage
    rejects a task that keeps one."""
    return _NO_FACT.search(fact) is not None


def dangling_reference(text: str) -> str | None:
    """Words pointing at a form, a list or an attachment the text does not hold (movie's
    "Please create a booking for myself, as indicated in the form below."), or a lone word
    the request opens with that no sentence takes up ("Brady. I'd like ..."), or None."""
    if (m := _LONE_OPENING.match(text)) and m.group(1).casefold() not in _INTERJECTIONS:
        return m.group().strip()
    m = _POINTS_AT.search(text)
    return m.group() if m else None


# a greeting to a name of capitalised words: weather-intent-00048 on 8a86ecf, "Hi West
# Stephanieport Station, please let me know the station ID" (a new station's name)
_GREETS_A_NAME = re.compile(
    r"(?:^|(?<=[.!?] ))(?i:hi|hello|hey|dear)\s+(?!(?i:customer|support|team|there|all)\b)"
    r"[A-Z][a-z]+(?: [A-Z][a-z]+){1,3}\s*[,!]"
    # ... or calls the one it writes to by a name: medicine-intent-00125 on ac78a9f, "I have
    # an appointment with you on January 20th. I want to move it to you, Anna Lynch." (the
    # doctor the appointment was to move to)
    r"|\byou,\s+(?!(?i:customer|support|team|all|everyone)\b)[A-Z][a-z]+(?: [A-Z][a-z]+){1,3}\b"
)


def greets_a_name(text: str) -> str | None:
    """A greeting to someone or something by a name of several words, or the one written
    to called by such a name ("to you, Anna Lynch"), or None: the customer writes to an
    assistant that has none. Read after the check of the user's own
    name (`validators.intent.named_self`), which says more of "Hello Maria Lopez,"."""
    m = _GREETS_A_NAME.search(text)
    return m.group() if m else None


def assistant_voiced(text: str) -> str | None:
    """Words only an assistant says ("I'm here to help you with your account. If you have
    any questions ..."), or None: a request is the customer's."""
    m = _ASSISTANT.search(text)
    return m.group() if m else None


def third_person(text: str, entities: set[str], user: str | None = None) -> str | None:
    """Words that ask for someone else's record ("activate her card ending 5035"), or None:
    the agent acts only for the person who asks, on their own records; a request that
    speaks of its user ("the customer wants to know") is about them. Money sent "to her
    account" is the user's own act, and where the user is of another kind (`user`, a
    teacher) "my student" is a record of the school's they deal with."""
    for m in _THIRD_PERSON.finditer(text):
        if re.search(r"\b(?:in)?to\s+$", text[: m.start()]):
            continue
        first, second = m.group(1), m.group(2)
        if first.lower() in entities:
            return m.group()[: m.end(1) - m.start()]
        if second and second.lower() in entities:
            return m.group()
    for m in _MY_PERSON.finditer(text):
        kind = m.group(1).lower()
        if kind in entities and user in (None, kind):
            return m.group()
    return narrated(text, user)


def narrated(text: str, user: str | None = None) -> str | None:
    """Words that tell about the user instead of by them ("the customer wants to ...", or
    of the people's own kind, `user`: weather-intent-00175 on acc26f6, "the forecaster
    wants me to create an alert for themselves"), or None."""
    for m in _NARRATED.finditer(text):
        if m.group(1).lower() in PEOPLE or (user and m.group(1).lower() == user):
            return m.group()
    spoken = _SPOKEN_OF.search(text) or _NAMED_WANTS.search(text)
    return spoken.group().lstrip(".!? ") if spoken else None


# the user spoken of as "she" or "he": travel-intent-00059 on 0651c04, "Katrina Morris would
# like to book a hotel for herself ... She would also like to book a flight"
_SPOKEN_OF = re.compile(
    r"\b(?:she|he)\s+(?:would(?:\s+also)?\s+like|(?:also\s+)?(?:wants|needs|wishes|asks)|"
    r"is\s+asking)\b|\bfor\s+(?:herself|himself)\b",
    re.I,
)


# a sentence that opens on a person's name and what they want: basketball-intent-00005 on
# 65cb0f1, "Judith Lamb, our basketball service team, wants to suspend Lauren Lutz"
_NAMED_WANTS = re.compile(
    r"(?:^|[.!?]\s+)(?!(?:The|This|That|These|Those|My|Our|Your|Its)\b)"
    r"[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+(?:,[^,.]{1,60},)?\s+"
    r"(?:would(?:\s+also)?\s+like|wants|needs|wishes|is\s+asking)\b"
)


def variants(word: str, groups: tuple[frozenset[str], ...] = OPERATIONS) -> frozenset[str]:
    """The stems of a word and of its synonyms: one stem alone when it names no act."""
    return _variants(word.casefold(), groups)


# between the user and a verb in the past: "I've already booked", "we just ordered"
_BEFORE_PAST = frozenset({"just", "already", "recently", "have", "ve", "had", "d", "previously"})
# cues that are also nouns: "my order list", "the status report", "a quick look"
_NOUN_CUES = frozenset({"list", "report", "look", "check", "display", "show"})
_DETERMINERS = frozenset({"my", "the", "a", "an", "your", "this", "that", "our", "their"})
_NOT_DESCRIBING = frozenset(
    {"and", "or", "then", "please", "to", "you", "me", "i", "can", "could", "will", "would"}
)


# "the order item whose quantity is 12" describes; "tell me whose card it is" asks
RELATIVE = frozenset({"which", "who", "whom", "whose", "where", "when"})
_ASKING_BEFORE = frozenset({"me", "know", "wonder", "wondering", "and", "or", "see", "check"})
_UNABLE = frozenset({"t", "cannot", "not", "unable"})  # "I can't find the order number"


# "What can you do for me?", "let me know what to do next": what the user may or must do,
# which no record tells (finance-intent-00024 and 00038 on e4504b8, each told a status)
_WHAT_TO_DO = re.compile(
    r"\bwhat (?:to|(?:can|could|should|shall|must) (?:you|i|we)|do (?:i|we)(?: need to| have to)?"
    r"|(?:i|we|you) (?:can|could|should|must|need to|have to|ought to)) do\b",
    re.I,
)


def _not_a_cue(tokens: Sequence[str], i: int) -> bool:
    """The cue at `i` asks nothing here: a noun ("my order list"), a relative word after
    a noun ("my order item whose quantity is 12"), an act granted ("provide me with a
    refund"), or a search the user failed at."""
    token, before = tokens[i], tokens[i - 1] if i else ""
    if token in _NOUN_CUES and _after_determiner(tokens, i):
        return True
    # "my hotel booking whose check-in date is 2025-05-23" (travel-intent-00014 on d7b1bec)
    if token == "check" and tokens[i + 1 : i + 2] in (["in"], ["out"]):
        return True
    # "I want to see it on February 17": a film watched (movie-intent-00047 on 9a0577e)
    if token == "see" and _WATCHED.match(" ".join(tokens[i + 1 : i + 4])):
        return True
    if token in RELATIVE and before and before not in _ASKING_BEFORE:
        return True
    if token in _GRANTS and _grants_an_act(tokens[i + 1 : i + 5]):
        return True
    # "I want to confirm my booking seat count of 2" asks for the act, not to be told
    # (movie-intent-00044 on 71aacdf was told its status unasked); "confirm that ...",
    # "confirm the status" and "can you confirm this?" (medicine-intent-00037) still ask
    after = tokens[i + 1 : i + 5]
    if token in _VERIFY and after[:1] in (["my"], ["the"], ["our"]) and not _verifying(after):
        return True
    # "Please tell the team to activate Gabriella Gallagher's player status" passes an
    # order on (basketball-intent-00019 on cb56dcd was told the status unasked)
    if token == "tell" and _passed_on(tokens[i + 1 : i + 5]):
        return True
    # "I know my email is ..." and "I know it's the 207 seat" tell, they ask nothing
    # (railway-intent-00027 on a4b9fc9, "can I cancel my ticket ...? I know my email is")
    if token == "know" and before in ("i", "we"):
        return True
    # "let me know if I need to fill out any additional information" asks what the user
    # must do, which no record tells (railway-intent-00003 on a4b9fc9, told a status)
    if _asks_a_duty([t for t in tokens[i + 1 : i + 7] if t not in ("me", "us")]):
        return True
    if token == "what" and _WHAT_TO_DO.match(" ".join(tokens[i : i + 6])):
        return True
    if _WHAT_TO_DO.match(" ".join(t for t in tokens[i + 1 : i + 8] if t not in ("me", "us"))):
        return True
    # "Could you please tell me your status?" asks the assistant about itself, no record
    # (railway-intent-00036 on a4b9fc9 was told the passenger's status)
    if [t for t in tokens[i + 1 : i + 3] if t not in ("me", "us")][:1] == ["your"]:
        return True
    # "I need to report my frozen card" reports the card (finance's report_stolen_card), it
    # asks to be told nothing (finance-intent-00005 on 5cf74c2 was told its status unasked)
    if token == "report" and tokens[i + 1 : i + 2] in (["my"], ["our"], ["a"], ["this"]):
        return True
    return token == "find" and before in _UNABLE


def _asks_a_duty(after: Sequence[str]) -> bool:
    """ "if I need to ...", "whether we have to ...": what the user must do."""
    return (
        after[:1] in (["if"], ["whether"])
        and after[1:2] in (["i"], ["we"])
        and after[2:3] in (["need"], ["have"], ["must"], ["should"])
    )


def _passed_on(after: Sequence[str]) -> bool:
    """ "tell the team to activate ...", "tell my coach to ...": an order for someone else
    to carry out, not a question; "tell me ..." and "tell us ..." ask."""
    if after[:1] not in (["the"], ["my"], ["our"], ["his"], ["her"], ["their"]):
        return False
    return "to" in after[1:4] and after.index("to", 1) + 1 < len(after)


def _verifying(after: Sequence[str]) -> bool:
    """The words after "confirm" or "verify" ask to be told a fact: "confirm that ...",
    "confirm whether ...", "confirm the status of ...", "confirm the current booking
    status", not "confirm my booking"."""
    return bool(after) and (after[0] in _CLAUSE or "status" in after)


_WATCHED = re.compile(
    r"(?:it (?:on|at|in|this|next|tonight|tomorrow)|(?:the|a|this) (?:movie|film|show|showtime|"
    r"game|match|play|concert|performance))\b"
)
_GRANTS = frozenset({"give", "provide"})
ACT_WORDS = frozenset(w for group in OPERATIONS for w in group)  # every word of an act
_ACT_STEMS = frozenset(stem(w) for w in ACT_WORDS)
_FOR = frozenset({"for", "per"})  # "the fee for those checked bags" ("due on" is a field)
_COUNTS = frozenset({"number", "count", "amount", "total", "quantity"})


def _said_for(sentence: Sequence[str], i: int) -> bool:
    """The words before the field's word at `i` say it is what another thing is for or of:
    "the fee for those bags", "the prices of these bags"; "the number of bags" asks them."""
    near = range(max(0, i - 3), i)
    if any(sentence[k] in _FOR for k in near):
        return True
    return any(sentence[k] == "of" and k and sentence[k - 1] not in _COUNTS for k in near)


def _grants_an_act(after: Sequence[str]) -> bool:
    """An act asked for, not a value: "provide me with a refund", "give me a cancellation"
    (railway-intent-00018 kept a told status on those words alone)."""
    rest = [t for t in after if t not in ("me", "with", "a", "an")]
    return bool(rest) and rest[0] in ACT_WORDS and any(t in ("a", "an") for t in after[:3])


def _after_determiner(tokens: Sequence[str], i: int) -> bool:
    """The token is a noun: it follows a determiner within three words ("my pending order
    list"), and no "of" follows it ("the list of my bookings" asks for one)."""
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    if after == "of":
        return False
    for t in reversed(tokens[max(0, i - 3) : i]):  # back over the words that describe it
        if t in _DETERMINERS:
            return True
        if t in _NOT_DESCRIBING:
            return False
    return False


# "New" opening a capitalised name inside a sentence ("activate the New Ryanville
# Station", "the course 'New Elizabethtown Course'") is part of a place's name
_NEW_IN_NAME = re.compile(r"\bNew(?= [A-Z][a-z])")
_SENTENCE_END = re.compile(r"(?:^|[.!?:\n])[\s'\"“‘(]*$")


# finance's "I need to set up a loan for myself": two words for one act; weather's "Can
# you turn on the New Jonathan Station?" (weather-intent-00016 on aedf9df)
_PHRASAL = re.compile(r"\b(set|sign|turn|switch)(?:ting|ing|s|ed)?[ -](up|on|off)\b", re.I)


def without_name_new(text: str) -> str:
    """The text with the "New" of place names left out, so that it asks to create nothing;
    at a sentence's start ("New booking for ...") it stays, as there it may be the word.
    A two-word verb is made one ("set up" is "setup")."""
    text = _PHRASAL.sub(lambda m: m.group(1) + m.group(2), text)
    return _NEW_IN_NAME.sub(
        lambda m: m.group() if _SENTENCE_END.search(text[: m.start()]) else "", text
    )


def spelled(name: str) -> str:
    """A pattern for a snake_case name as a text may write it ("in progress", "in-progress",
    "check_in date")."""
    return r"[\s_-]+".join(map(re.escape, name.split("_")))


def sentences(text: str) -> list[str]:
    """A text's sentences, split after a stop: each may ask, or state a fact as a known
    fact does."""
    return re.split(r"(?<=[.!?])\s+", text)


# the typographic quotes a model writes ("I’d like to", "don’t"), as the checks spell them
_TYPOGRAPHIC = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


def straight_quotes(text: str) -> str:
    """The text with typographic quotes made plain: travel-intent-00039 on 00fbd03, "I
    don’t know my email", passed a check written for "don't"."""
    return text.translate(_TYPOGRAPHIC)


class Request:
    """An instruction (or a whole user text) stemmed once, asked about many words."""

    def __init__(self, text: str):
        self.text = text
        plain = without_name_new(text)
        self.tokens = tokens(plain)
        self.stems = {stem(t) for t in self.tokens}
        self.sentences = [tokens(s) for s in re.split(r"[.?!;\n]+", plain) if s.strip()]

    def says(self, word: str, groups: tuple[frozenset[str], ...] = OPERATIONS) -> bool:
        """The word, a form of it, or a synonym is in the text."""
        return bool(_variants(word.casefold(), groups) & self.stems)

    def says_any(
        self, candidates: Iterable[str], groups: tuple[frozenset[str], ...] = OPERATIONS
    ) -> bool:
        return any(self.says(w, groups) for w in candidates if w not in GENERIC)

    def requests(
        self,
        word: str,
        entities: set[str],
        groups: tuple[frozenset[str], ...] = OPERATIONS,
        describes: bool = True,
        fields: frozenset[str] = frozenset(),
        words_of: Sequence[str] = (),
    ) -> bool:
        """The word is said as something to do, not as what a record is: "my pending
        transfer" and "if my profile is frozen" describe a record, "mark my transfer as
        pending" asks for a change
        (with `describes` off, for a create, "a checking account" names the new record's
        kind). A synonym that is also a record's name is that record: "my order" does not
        ask to create anything, though "order" can mean "create"; nor does a word that
        with its neighbour names one of `fields` (the columns): "my prescription refills
        used" asks to refill nothing."""
        variants = _variants(word.casefold(), groups)
        phrase = {stem(w) for w in words_of}
        for i, token in enumerate(self.tokens):
            if stem(token) not in variants:
                continue
            if token in entities and stem(token) != stem(word.casefold()):
                continue
            if self._names_field(i, fields):
                continue
            if i and self.tokens[i - 1] in ("which", "that", "who"):
                # "the course ..., which starts on 2023-07-07" says what a record is
                # (school-intent-00031 on 0fd2081, whose gold created a grade)
                continue
            after = self.tokens[i + 1] if i + 1 < len(self.tokens) else ""
            if describes and token.endswith(_ATTRIBUTIVE) and after in entities:
                continue
            if describes and self._describes(i, entities):
                continue  # "a complete basketball game": a kind of game, not one to complete
            if stem(token) in _VERIFY and self._verifies(i):
                continue  # "confirm that my booking is still active": checked, not done
            if self._narrated(i):
                continue  # "I just placed an order", "I ordered 4 units": done, not asked
            if _HOW.search(" ".join(self.tokens[max(0, i - 8) : i])):
                continue  # "how can I activate my profile?": a way asked for, not the act
            if _HOW_THAT.search(" ".join(self.tokens[i + 1 :])):
                continue  # "I want to activate my profile. How do I do that?"
            # "if my card status is reported stolen": the state's words are one phrase
            # (finance-intent-00350 on c430db5, whose gold reported the card stolen)
            start = i
            while start and stem(self.tokens[start - 1]) in phrase:
                start -= 1
            before = self.tokens[max(0, start - 2) : start]
            if (
                describes
                and before
                and (before[-1] in _COPULAS or (before[-1] in _STILL and before[0] in _COPULAS))
            ):
                continue  # "if my profile is frozen", "if it is currently repaid": a state
            return True
        return False

    def _names_field(self, i: int, fields: frozenset[str]) -> bool:
        """The token at `i` and the one before or after it are a column's name:
        medicine-intent-00095 on 61a5427, "I'd like to know my prescription refills used",
        whose gold tried a refill (the column `refills_used`)."""
        toks = self.tokens
        pairs = [toks[i - 1 : i + 1] if i else [], toks[i : i + 2]]
        if toks[i + 1 : i + 2] and toks[i + 1] in _COPULAS:
            # "my prescription refill is allowed 76 times" (medicine-intent-00051 on b5cbf4f)
            pairs.append([toks[i], *toks[i + 2 : i + 3]])
        named = {"_".join(map(singular, f.split("_"))) for f in fields}
        return any(len(pair) == 2 and "_".join(map(singular, pair)) in named for pair in pairs)

    def _narrated(self, i: int) -> bool:
        """The verb at `i` is in the past and its subject is the user: ecommerce-intent-00025
        on 277c846 said "I just placed an order for Danielview Product. I ordered 4 units and
        it was delivered to me. Can you please tell me the order item id", and its gold
        created an order item."""
        if not self.tokens[i].endswith("ed"):
            return False
        j = i - 1
        while j >= 0 and self.tokens[j] in _BEFORE_PAST:
            j -= 1
        return j >= 0 and self.tokens[j] in ("i", "we")

    def _describes(self, i: int, entities: set[str]) -> bool:
        """The word at `i` follows an article and a record's name follows it within two
        words ("a complete basketball game", "the complete game list"): it says what kind
        of record, where "a freeze on my card" still asks for one."""
        ahead = self.tokens[i + 1 : i + 3]
        return i > 0 and self.tokens[i - 1] in _ARTICLES and bool(entities & set(ahead))

    def _verifies(self, i: int) -> bool:
        """The verb at `i` asks to be told a fact (`_verifying`)."""
        return _verifying(self.tokens[i + 1 : i + 5])

    def requests_any(
        self,
        candidates: Iterable[str],
        entities: set[str],
        groups: tuple[frozenset[str], ...] = OPERATIONS,
        describes: bool = True,
        fields: frozenset[str] = frozenset(),
    ) -> bool:
        said = list(candidates)
        return any(
            self.requests(w, entities, groups, describes, fields, words_of=said)
            for w in said
            if w not in GENERIC
        )

    @property
    def asks_for_information(self) -> bool:
        """A cue ("tell", "what", "check") or a question that is no request to act: "can
        you top up my balance? I want to add $26 to it" asks to be told nothing. A cue
        that asks nothing where it stands ("it's on my pending order list", "my item whose
        quantity is 12", "I can't find the order number") is none."""
        for sentence in self.sentences:
            for i, token in enumerate(sentence):
                if token in INFO_CUES and not _not_a_cue(sentence, i):
                    return True
        clauses = re.split(r"(?<=[.?!;])\s+|\n+", self.text)
        return any(
            c.rstrip().endswith("?") and not _ASKS_TO_ACT.search(c) and not _WHAT_TO_DO.search(c)
            for c in clauses
        )

    def asks_after(self) -> str | None:
        """The words of a sentence that asks to be told something after an operation ("I
        want to know the balance of my account after this transfer"), or None."""
        for sentence in sentences(self.text):
            after = _AFTER.search(sentence)
            if after and _ASKING.search(sentence):
                return after.group()
        return None

    @property
    def asks_for_each(self) -> bool:
        return bool(EACH_CUES & set(self.tokens))

    def asks_about(self, field: str) -> bool:
        """A sentence holds both a request for information and every word of `field`."""
        wanted = [w for w in words(field) if w not in GENERIC]
        if not wanted:
            return False
        own = set(words(field))
        for sentence in map(_without_given, self.sentences):
            stems = {stem(t) for t in sentence}
            # "The check-in date is 2022-04-18": the field's own "check" asks nothing
            cued = any(
                t in INFO_CUES and (t not in own or sentence.count(t) > 1)
                for i, t in enumerate(sentence)
                if not _not_a_cue(sentence, i)
            )
            if cued and all(_variants(w, FIELDS) & stems for w in wanted):
                return True
        return False

    def names_as_asked(self, field: str) -> bool:
        """A word of `field` is said in a sentence that asks, neither as what another thing
        is for nor after an act before the cue: "add checked bags to this booking and check
        the fees" and "I also need to know the fee for those bags" ask the fee, not the bags
        (travel-intent-00000 on d7b1bec was told its bag count too); "I need two numbers:
        the total balance ... and how many active cards I have" asks both."""
        wanted = {v for w in words(field) if w not in GENERIC for v in _variants(w, FIELDS)}
        for sentence in self.sentences:
            cues = [i for i, t in enumerate(sentence) if t in INFO_CUES]
            cues = [i for i in cues if not _not_a_cue(sentence, i)]
            if not cues:
                continue
            for i, token in enumerate(sentence):
                if stem(token) not in wanted or _said_for(sentence, i):
                    continue
                if i > cues[0] or not _ACT_STEMS & {stem(t) for t in sentence[:i]}:
                    return True
        return False


_CALLED = {"named", "called"}


def _without_given(sentence: list[str]) -> list[str]:
    """A sentence's words less what gives a value rather than asks it: each "whose <field>
    is" ("suspend my player whose name is Wayne Hughes") and "named"/"called" ("suspend the
    player named Sean Woods and provide the player status"), which asked the team's name
    of basketball on 9b9d975."""
    out: list[str] = []
    k = 0
    while k < len(sentence):
        if sentence[k] in _CALLED:
            k += 1
            continue
        end = next(
            (j for j in range(k + 2, min(k + 5, len(sentence))) if sentence[j] in _IS),
            None,
        )
        after_a_thing = k > 0 and sentence[k - 1] not in INFO_CUES | {"me", "us", "know"}
        if sentence[k] == "whose" and end is not None and after_a_thing:
            k = end + 1
            continue
        out.append(sentence[k])
        k += 1
    return out


_IS = {"is", "was", "are", "were"}


def same_field(a: str, b: str) -> bool:
    """Two field names for the same thing: `copies_left` and `copies_available`."""
    wa = [w for w in words(a) if w not in GENERIC]
    vb = set().union(*(_variants(w, FIELDS) for w in words(b) if w not in GENERIC))
    return bool(wa) and all(_variants(w, FIELDS) & vb for w in wa)


def names_operation(field: str, operations: Iterable[str]) -> bool:
    """Every word of `field` is a form of an operation word (`closed_on` of "close"): saying
    the operation is not asking about the field."""
    wanted = [w for w in words(field) if w not in GENERIC]
    ops = set().union(*(_variants(w.casefold(), OPERATIONS) for w in operations))
    return bool(wanted) and all(_variants(w, OPERATIONS) & ops for w in wanted)


# pairs of moments whose second is not before its first, by their names' words
SPANS = (("start", "end"), ("begin", "end"), ("check_in", "check_out"), ("departure", "arrival"))


# a record's making comes before what happens to it: ecommerce's seed had orders updated
# months before they were created, and delivered before either
MADE = ("created", "placed", "ordered", "opened", "booked", "issued", "registered", "joined")
LATER: tuple[str, ...] = ("updated", "modified", "changed", "delivered", "shipped", "closed")
LATER += ("cancelled", "canceled", "completed", "resolved", "returned", "refunded", "paid")


def _named(moment: str, word: str) -> bool:
    return word in moment.split("_") or moment.startswith(word)


def spans(moments: Iterable[str], made: bool = True) -> list[tuple[str, str]]:
    """(start, end) of the columns that name a span by their words (`check_in_date`,
    `check_out_date`; and unless `made` is false, `created_at`, `delivered_date`), among
    date and time columns."""
    names = list(moments)
    pairs = list(SPANS)
    pairs += [
        (first, later)
        for first in (MADE if made else ())
        if any(_named(m, first) for m in names)
        for later in LATER
    ]
    out = []
    for first, second in pairs:
        start = next((m for m in names if _named(m, first)), None)
        end = next((m for m in names if _named(m, second)), None)
        if start and end and start != end and (start, end) not in out:
            out.append((start, end))
    return out


def record_phrase(table: str) -> str:
    """How a text names one record of a table: `flight_bookings` -> "flight booking"."""
    return singular(table).replace("_", " ")


# what a person calls a record, best first; a name's parts alone only where no whole is
NAME_COLUMNS = ("name", "full_name", "title")
NAME_PARTS = ("first_name", "last_name")


def record_names(row: Mapping[str, object]) -> list[str]:
    """What a person calls a record, best first: a person's first and last name, its name
    columns (name, full name, title, any other ending in "name" but a username), then a
    name's part alone. The intent generator words a record by the first; the facts stage
    reads every one."""
    out: list[str] = []
    first, last = row.get("first_name"), row.get("last_name")
    if isinstance(first, str) and isinstance(last, str) and first.strip() and last.strip():
        out.append(f"{first.strip()} {last.strip()}")
    others = [k for k in row if k.endswith("name") and k not in NAME_COLUMNS]
    for column in (*NAME_COLUMNS, *others):
        value = row.get(column)
        if column in NAME_PARTS or "user" in column or not isinstance(value, str):
            continue
        if value.strip() and value.strip() not in out:
            out.append(value.strip())
    if not out:
        out = [v.strip() for c in NAME_PARTS if isinstance(v := row.get(c), str) and v.strip()]
    return out


_AN = re.compile(r"[aeio]|u(?!ni|s[aeu]|ti)|h(?:our|onou?r)", re.I)


def with_article(noun: str) -> str:
    """The noun after its indefinite article: "an appointment", "a user", "an hour"."""
    return f"{'an' if _AN.match(noun) else 'a'} {noun}"


def singular(name: str) -> str:
    """`accounts` → account, `categories` → category, `courses` → course, `statuses` →
    status (table names are mostly plurals)."""
    if name in IRREGULAR:
        return IRREGULAR[name]
    if name.endswith("ies") and len(name) > 4:
        return name[:-3] + "y"
    if name.endswith(("sses", "xes", "ches", "shes")):
        return name[:-2]
    if name.endswith("s") and not name.endswith(("ss", "us")):
        return name[:-1]
    return name


IRREGULAR = {
    "movies": "movie",
    "people": "person",
    "statuses": "status",
    "buses": "bus",
    "menus": "menu",
    "series": "series",
    "species": "species",
}


def entity_words(table: str) -> set[str]:
    """The words that name a table's entity: `card_holders` → card, holder, holders."""
    out: set[str] = set()
    for w in words(table):
        out |= {w, singular(w)}
    return out - GENERIC


def schema_entities(schema: Schema) -> set[str]:
    """The words that name any table's entity: what a request calls a record."""
    return set().union(*(entity_words(t.name) for t in schema.tables))


def names_state(tool: Tool, state: str) -> bool:
    """Whether the tool's name says the state it sets (`freeze_card` frozen, `activate_loan`
    active, `set_repaid_loan` repaid), not a state set beside what it does (`change_seat`
    booking the ticket again)."""
    wanted = stem(state.casefold())
    return any(wanted in variants(w) for w in words(tool.name))


def closed_choices(tool: Tool) -> set[str]:
    """Parameters whose values come from a closed set (enum or const)."""
    props = tool.parameters.get("properties", {})
    return {name for name, prop in props.items() if "enum" in prop or "const" in prop}


def tables_of(tool: Tool, schema: Schema) -> list[str]:
    """The tables a tool is about: named in its name, else read by its returns query."""
    named = [t.name for t in schema.tables if entity_words(t.name) & set(words(tool.name))]
    if named:
        return named
    sql = tool.returns or " ".join(tool.run) or " ".join(s.sql for s in tool.require)
    return [t.name for t in schema.tables if re.search(rf"\b{t.name}\b", sql, re.IGNORECASE)]


def operation_words(tool: Tool, arguments: Mapping[str, object], schema: Schema) -> list[str]:
    """How a request names what a write does: the chosen value of a closed choice (the new
    status), else the tool name's words that name neither a table nor nothing, and its
    leading verb even where a table shares it (`transfer_balance` with a `transfers` table:
    "transfer" is what the user says); after a leading verb, column words name no operation
    ("tell me my max balance" does not ask to `adjust_max_balance`)."""
    chosen = [
        w
        for name in sorted(closed_choices(tool))
        if isinstance(arguments.get(name), str)
        for w in words(str(arguments[name]))
    ]
    if chosen:
        return chosen
    tables = schema_entities(schema)
    named = words(tool.name)
    columns = {w for t in schema.tables for c in t.columns for w in words(c.name)}
    if len(named) > 1 and named[0] not in GENERIC | FIELD_WORDS:  # verb first: the verb, and
        # what is neither a table nor a column (`adjust_max_balance` is said "adjust")
        return [named[0]] + [w for w in named[1:] if w not in GENERIC | tables | columns]
    # no verb first: movie's `status_active_bookings` was asked for by any "my booking
    # status" ("status" was taken for its verb), so "is it active?" kept a write
    said = [w for w in named if w not in GENERIC | tables]
    return [w for w in said if w not in columns] or said
