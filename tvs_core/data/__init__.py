"""From a file to the numeric table the models see: read, infer types and roles, validate, handle
missing values, encode, map to the unit cube (margins), split off the hold-out."""
