"""A player's turn: which actions are legal, and each action checked and carried out.

Every check runs before anything moves, so a rejected action leaves the state as it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulepress.memory import forget, reveal
from rulepress.protocol import Event, RuleViolation, decided

from .actions import ACTION_NAMES, DISCARD, DRAW, FLIP, FROM_DISCARD, LIGHT, PASS, PLANT, a_or_an
from .cards import DURING_DRAW, draw_from_deck
from .flow import end_turn
from .state import DISCARD as DISCARD_PHASE
from .state import OVER, UNKNOWN_TILE, Action, State

if TYPE_CHECKING:
    from .game import LanternMothsGame


def legal_actions(game: LanternMothsGame, state: State) -> list[Action]:
    phase = state.phase
    seat = state.current
    if phase == OVER:
        return []
    if phase == DISCARD_PHASE:
        table = game.discard_table[seat]
        card_kind = game.pieces.card_kind
        return [table[k] for k in sorted({card_kind[c] for c in state.hands[seat]})]
    found = _play_actions(game, state, seat)
    if not found:
        decided(state, "pass_rule")  # stuck: the text never says a player may pass
    if not found or game.opts.pass_rule == "always":
        found.append(game.pass_table[seat])
    return found


def _play_actions(game: LanternMothsGame, state: State, seat: int) -> list[Action]:
    found: list[Action] = []
    if not state.deck:
        decided(state, "draw_when_deck_empty")  # only the discard pile may be drawn from, or nothing at all
    if state.deck:
        found.append(game.draw_table[seat][0])
    if state.discard:
        found.append(game.draw_table[seat][1])
    face_up = state.face_up
    up, flippable, corner_only = game.garden_view(face_up)
    if corner_only:
        decided(state, "flip_adjacency")
    hand = state.hands[seat]
    if hand:
        pieces = game.pieces
        limit = pieces.tile_limit
        moths = state.moths
        tile_at = state.tile_at
        open_cells = [c for c in up if len(moths[c]) < limit]
        card_kind = pieces.card_kind
        ghost_kind = pieces.ghost_kind
        kinds = {card_kind[c] for c in hand}  # once: the Ghost Moth check and the planting below share it
        if len(open_cells) < len(up) and ghost_kind in kinds:
            decided(state, "ghost_on_full_tile")  # a Ghost Moth in hand and a full tile face up
        if open_cells or game.opts.ghost_on_full_tile:
            grey = pieces.grey
            plant = game.plant_table[seat]
            kind_colour = pieces.kind_colour
            for kind in sorted(kinds):
                row = plant[kind]
                if kind == ghost_kind:
                    targets = up if game.opts.ghost_on_full_tile else open_cells
                    found.extend([row[c] for c in targets])
                else:  # a colour goes on its own tiles and the grey one
                    colour = kind_colour[kind]
                    found.extend([row[c] for c in open_cells if tile_at[c] == colour or tile_at[c] == grey])
    if not state.lit and state.unlit[seat] > 0:
        light = game.light_table[seat]
        wicks = state.wicks
        found.extend([light[c] for c in up if seat not in wicks[c]])
    flip = game.flip_table[seat]
    found.extend([flip[c] for c in flippable])
    return found


def apply_action(game: LanternMothsGame, state: State, action: Action) -> list[Event]:
    if state.phase == OVER:
        raise RuleViolation("lm.night.end", "The game is over: the night has ended")
    seat = state.current
    if action.player != seat:
        raise RuleViolation("lm.turn.order", f"It is {state.players[seat]}'s turn, "
                                             f"not {_name(state, action.player)}'s")
    kind = action.kind
    if state.phase == DISCARD_PHASE and kind != DISCARD:
        raise RuleViolation("lm.turn.draw.discard", f"First discard down to {game.pieces.hand_size} cards")
    events: list[Event] = []
    if kind == DRAW:
        _draw(game, state, action, events)
    elif kind == PLANT:
        _plant(game, state, action, events)
    elif kind == LIGHT:
        _light(game, state, action, events)
    elif kind == FLIP:
        _flip(game, state, action, events)
    elif kind == PASS:
        _pass(game, state, events)
        state.action_count += 1
        end_turn(game, state, events)
        return events
    elif kind == DISCARD:
        _discard(game, state, action, events)
        state.action_count += 1
        if len(state.hands[seat]) <= game.pieces.hand_size:
            end_turn(game, state, events)
        return events
    else:
        raise RuleViolation("lm.turn.actions", "The four actions are Draw, Plant, Light and Flip")
    state.action_count += 1
    state.actions_taken += 1
    state.taken.append(ACTION_NAMES[kind])
    if state.actions_taken >= game.pieces.actions_per_turn:
        end_turn(game, state, events)
    return events


def _name(state: State, seat: int) -> str:
    return state.players[seat] if 0 <= seat < len(state.players) else f"seat {seat}"


def _draw(game: LanternMothsGame, state: State, action: Action, events: list[Event]) -> None:
    who = state.players[action.player]
    if action.arg == FROM_DISCARD:
        if not state.discard:
            raise RuleViolation("lm.turn.draw", "The discard pile is empty: draw from the deck instead")
        card = state.discard.pop()
        state.hands[action.player].append(card)
        name = game.pieces.kind_names[game.pieces.card_kind[card]]
        events.append(Event("draw", "lm.turn.draw", {"player": who, "from": "discard", "shown": True,
                                                     "card": name}))
        # Shown to everyone before it goes into the hand: known there until it leaves it (lm.q23).
        forget(state, "discard", [name])
        reveal(state, f"hands.{who}", [name])
        decided(state, "remembered")
        return
    if not state.deck:
        raise RuleViolation("lm.turn.draw", "The deck is empty" + (
            ": draw from the discard pile instead" if state.discard else " and so is the discard pile"))
    draw_from_deck(game, state, action.player, DURING_DRAW, events)


def _plant(game: LanternMothsGame, state: State, action: Action, events: list[Event]) -> None:
    pieces = game.pieces
    kind, cell = action.arg, action.cell
    hand = state.hands[action.player]
    card_kind = pieces.card_kind
    card = next((c for c in hand if card_kind[c] == kind), None)
    name = pieces.kind_names[kind]
    place = pieces.cell_names[cell]
    if card is None:
        raise RuleViolation("lm.turn.plant", f"You have no {name} card in your hand")
    if not state.face_up[cell]:
        raise RuleViolation("lm.turn.plant", f"{place} is face down: moths are planted on face-up tiles only")
    tile = state.tile_at[cell]
    full = len(state.moths[cell]) >= pieces.tile_limit
    if kind == pieces.ghost_kind:
        if full and not game.opts.ghost_on_full_tile:
            raise RuleViolation("lm.edge.ghost-limit", f"{place} is full: a Ghost Moth counts towards the "
                                                       f"limit of {pieces.tile_limit} moths like any other")
    else:
        colour = pieces.kind_colour[kind]
        if tile != pieces.grey and tile != colour:
            named = a_or_an(pieces.colours[colour])
            raise RuleViolation("lm.turn.plant", f"{named[:1].upper()}{named[1:]} moth goes on {named} tile or "
                                                 f"the grey tile; {place} is {pieces.tile_names[tile]}")
        if full:
            raise RuleViolation("lm.turn.plant.full", f"{place} is full: a tile holds at most "
                                                      f"{pieces.tile_limit} moths")
    hand.remove(card)
    state.moths[cell].append(card)
    who = state.players[action.player]
    forget(state, f"hands.{who}", [name])  # face up on the tile now: what was known of the hand is one card less
    events.append(Event("plant", "lm.turn.plant", {"player": who, "card": name, "tile": place,
                                                   "moths": len(state.moths[cell])}))
    if kind == pieces.ghost_kind:
        state.ghost_block[cell] = True
        events.append(Event("ghost-planted", "lm.turn.plant.ghost", {"player": who, "tile": place}))


def _light(game: LanternMothsGame, state: State, action: Action, events: list[Event]) -> None:
    seat, cell = action.player, action.cell
    place = game.pieces.cell_names[cell]
    if not state.face_up[cell]:
        raise RuleViolation("lm.turn.light", f"{place} is face down: wicks go beside face-up tiles only")
    if seat in state.wicks[cell]:
        raise RuleViolation("lm.edge.own-wicks", f"You already have a wick beside {place}: two of your wicks "
                                                 "may not be beside the same tile")
    if state.lit:
        raise RuleViolation("lm.turn.light", "Light may be taken only once per turn")
    if state.unlit[seat] <= 0:
        raise RuleViolation("lm.turn.light", "All your wicks are already lit")
    state.unlit[seat] -= 1
    if state.unlit[seat]:
        decided(state, "spare_wicks")  # a wick left that no rule of this round lets the player light
    state.wicks[cell].append(seat)
    state.lit = True
    events.append(Event("light", "lm.turn.light", {"player": state.players[seat], "tile": place,
                                                   "moths": len(state.moths[cell])}))


def _flip(game: LanternMothsGame, state: State, action: Action, events: list[Event]) -> None:
    cell = action.cell
    pieces = game.pieces
    place = pieces.cell_names[cell]
    if state.face_up[cell]:
        raise RuleViolation("lm.turn.flip", f"{place} is already face up")
    if not any(state.face_up[other] for other in game.adjacency[cell]):
        how = "touch" if game.opts.flip_adjacency == "diagonal" else "share a side with"
        raise RuleViolation("lm.turn.flip", f"{place} does not {how} a face-up tile")
    if state.tile_at[cell] == UNKNOWN_TILE:
        # The tile under a face-down place is decided only now: drawing it from the tiles not yet seen
        # is the same as having shuffled them at setup, and lets an example fix what turns up.
        population = [pieces.tile_names[t] for t in state.tile_pool]
        tile = pieces.tile_index[state.chance.draw_from(population, "tile")]
        state.tile_pool.remove(tile)
        state.tile_at[cell] = tile
    state.face_up[cell] = True
    events.append(Event("flip", "lm.turn.flip", {"player": state.players[action.player], "tile": place,
                                                 "colour": pieces.tile_names[state.tile_at[cell]]}))


def _pass(game: LanternMothsGame, state: State, events: list[Event]) -> None:
    seat = state.current
    if game.opts.pass_rule != "always" and _play_actions(game, state, seat):
        raise RuleViolation("lm.turn.stuck", f"You must take {game.pieces.actions_per_turn} actions; you may "
                                             "pass only when no action is possible")
    events.append(Event("pass", "lm.turn.stuck", {"player": state.players[seat],
                                                  "actions_lost": game.pieces.actions_per_turn
                                                  - state.actions_taken}))


def _discard(game: LanternMothsGame, state: State, action: Action, events: list[Event]) -> None:
    pieces = game.pieces
    if state.phase != DISCARD_PHASE:
        if game.opts.discard_source == "none":
            raise RuleViolation("lm.turn.draw.discard", "No rule of this edition lets a player discard")
        raise RuleViolation("lm.turn.draw.discard", f"You discard only when your turn ends with more than "
                                                    f"{pieces.hand_size} cards")
    hand = state.hands[action.player]
    card = next((c for c in hand if pieces.card_kind[c] == action.arg), None)
    if card is None:
        raise RuleViolation("lm.turn.draw.discard", f"You have no {pieces.kind_names[action.arg]} card "
                                                    "in your hand")
    hand.remove(card)
    state.discard.append(card)
    who, name = state.players[action.player], pieces.kind_names[action.arg]
    events.append(Event("discard", "lm.turn.draw.discard", {"player": who, "card": name}))
    # Face up on the pile: everyone saw it go there, under whatever comes next (lm.q23).
    forget(state, f"hands.{who}", [name])
    reveal(state, "discard", [name])
    decided(state, "remembered")
