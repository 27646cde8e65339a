"""The experiment schema (:mod:`.schema`) and the checked YAML loader (:mod:`.yamlcheck`).

The bottom layer of aesdse: it imports nothing else of aesdse, so an experiment file can be
loaded and checked without the simulator or any tool.
"""
