-- Player preferences (theme, notation, text board) were stored but never read or set by any
-- command: dropped rather than kept as a promise nothing keeps. A real preference comes back
-- with the command that sets it and the code that honours it.
ALTER TABLE players DROP COLUMN theme;
ALTER TABLE players DROP COLUMN notation;
ALTER TABLE players DROP COLUMN text_board;
