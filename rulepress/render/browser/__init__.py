"""What a site page runs in the browser, under Pyodide: the referee (``referee.py``) and the stand-ins the bundle
carries for the modules whose libraries the browser lacks (``metrics.py``).  rulepress/render/in_browser.py packs
them with the engine."""
