"""``rulepress serve``: the site on 127.0.0.1, re-verified and rebuilt on every save, reloaded in the browser.

``watcher`` says which books a change reaches, ``session`` re-verifies them and rebuilds the site keeping the
last good output, ``banner`` puts each problem on the page it concerns, ``server`` serves and reloads.
"""
