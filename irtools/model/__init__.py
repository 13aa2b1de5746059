"""What every dialect's models share: the base model and field types (`base`) and the one vocabulary the
index, the rules and the tables read them through (`view`). Each dialect's own models live in its folder,
irtools/dialects/<name>/."""
