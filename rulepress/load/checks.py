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


def evaluate(expression: str, data: Mapping[str, Any]) -> Any:
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as exc:
        raise CheckError(f"cannot parse '{expression}': {exc.msg}") from exc
    return _eval(tree.body, data)


def _eval(node: ast.AST, data: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float | str):
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
        return _BINARY[type(node.op)](_eval(node.left, data), _eval(node.right, data))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, data)
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
        args = [_eval(arg, data) for arg in node.args]
        if node.func.id == "sum" and len(args) == 1 and isinstance(args[0], Mapping):
            args = [list(args[0].values())]
        return _FUNCTIONS[node.func.id](*args)
    if isinstance(node, ast.List | ast.Tuple):
        return [_eval(item, data) for item in node.elts]
    raise CheckError(f"'{ast.unparse(node)}' is not allowed in a check")


def describe_failure(expression: str, data: Mapping[str, Any]) -> str:
    """'48 + 6 == 55' style: the expression with each side's value, to show what disagrees."""
    tree = ast.parse(expression, mode="eval").body
    if isinstance(tree, ast.Compare) and len(tree.ops) == 1:
        left = _eval(tree.left, data)
        right = _eval(tree.comparators[0], data)
        return f"{ast.unparse(tree.left)} is {left}, {ast.unparse(tree.comparators[0])} is {right}"
    return "it is false"
