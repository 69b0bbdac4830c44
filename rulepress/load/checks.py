"""Arithmetic checks on component data ("48 + 6 == 54"), evaluated without eval()."""

from __future__ import annotations

import ast
import operator
from collections.abc import Mapping
from typing import Any

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}
_FUNCTIONS = {"sum": sum, "len": len, "min": min, "max": max}


class CheckError(ValueError):
    pass


MAX_LENGTH = 500  # characters in one check; the real ones are under 120
MAX_DEPTH = 50  # nesting of the expression tree; keeps _eval's recursion far from Python's limit
MAX_MAGNITUDE = 10**30  # no component count comes near; stops `n * n * n ...` growing without bound


def evaluate(expression: str, data: Mapping[str, Any]) -> Any:
    """The value of ``expression`` over ``data``; any problem with it is a CheckError, never another exception."""
    tree = _parse(expression)
    try:
        return _eval(tree, data)
    except CheckError:
        raise
    except (ZeroDivisionError, TypeError, ValueError, OverflowError, RecursionError, MemoryError) as exc:
        raise CheckError(f"cannot evaluate: {_reason(exc)}") from exc


def _parse(expression: str) -> ast.expr:
    if len(expression) > MAX_LENGTH:
        raise CheckError(f"the expression is {len(expression)} characters long, more than {MAX_LENGTH}")
    try:
        tree = ast.parse(expression, mode="eval").body
    except SyntaxError as exc:
        raise CheckError(f"cannot parse '{expression}': {exc.msg}") from exc
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, too many nested parentheses
        raise CheckError(f"cannot parse '{expression}': {_reason(exc)}") from exc
    depth = _depth(tree)
    if depth > MAX_DEPTH:
        raise CheckError(f"the expression nests {depth} levels deep, more than {MAX_DEPTH}")
    return tree


def _depth(tree: ast.AST) -> int:
    """The nesting depth of ``tree``, measured without recursion."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ZeroDivisionError):
        return "division by zero"
    if isinstance(exc, RecursionError | MemoryError):
        return "the expression is too complex"
    return str(exc) or type(exc).__name__


def _arithmetic(op: ast.operator, left: Any, right: Any) -> Any:
    # Numbers only: "ab" * 10**9 or [0] * 10**9 would build a huge value, and nothing in a check needs them.
    for value in (left, right):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise CheckError(f"arithmetic needs numbers, not {value!r}")
    result = _BINARY[type(op)](left, right)
    if abs(result) > MAX_MAGNITUDE:
        raise CheckError(f"a value passes {MAX_MAGNITUDE:.0e}; no component count is that large")
    return result


def _eval(node: ast.AST, data: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float | str) and not isinstance(node.value,
                                                                                                      bool):
        if isinstance(node.value, int | float) and abs(node.value) > MAX_MAGNITUDE:
            raise CheckError(f"the number {node.value:.3g} is too large for a check")
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in data:
            raise CheckError(f"unknown name '{node.id}'")
        return data[node.id]
    if isinstance(node, ast.Attribute):
        base = _eval(node.value, data)
        if not isinstance(base, Mapping) or node.attr not in base:
            raise CheckError(f"no field '{node.attr}' in {ast.unparse(node.value)}")
        return base[node.attr]
    if isinstance(node, ast.Subscript):
        base = _eval(node.value, data)
        key = _eval(node.slice, data)
        try:
            return base[key]
        except (KeyError, IndexError, TypeError) as exc:
            raise CheckError(f"no entry {key!r} in {ast.unparse(node.value)}") from exc
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _arithmetic(node.op, _eval(node.left, data), _eval(node.right, data))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _arithmetic(ast.Sub(), 0, _eval(node.operand, data))
    if isinstance(node, ast.Compare):
        left = _eval(node.left, data)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _eval(right_node, data)
            if type(op) not in _COMPARE:
                raise CheckError(f"comparison {type(op).__name__} is not allowed")
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return all(_eval(value, data) for value in node.values)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS:
        if node.keywords:
            raise CheckError(f"{node.func.id}() takes no keyword arguments in a check")
        args = [_eval(arg, data) for arg in node.args]
        if node.func.id == "sum" and len(args) == 1 and isinstance(args[0], Mapping):
            args = [list(args[0].values())]
        return _FUNCTIONS[node.func.id](*args)
    if isinstance(node, ast.List | ast.Tuple):
        return [_eval(item, data) for item in node.elts]
    raise CheckError(f"'{ast.unparse(node)}' is not allowed in a check")


def describe_failure(expression: str, data: Mapping[str, Any]) -> str:
    """'48 + 6 == 55' style: the expression with each side's value, to show what disagrees."""
    tree = _parse(expression)
    if isinstance(tree, ast.Compare) and len(tree.ops) == 1:
        left = evaluate(ast.unparse(tree.left), data)
        right = evaluate(ast.unparse(tree.comparators[0]), data)
        return f"{ast.unparse(tree.left)} is {left}, {ast.unparse(tree.comparators[0])} is {right}"
    return "it is false"
