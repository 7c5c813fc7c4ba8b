"""playbench tasks as Gymnasium and PettingZoo environments (the `gym` extra): the public entry points are
`playbench.gym` and `playbench.pettingzoo`; this package holds their parts."""
