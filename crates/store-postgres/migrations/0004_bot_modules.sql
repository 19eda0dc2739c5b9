-- Bots' submitted WebAssembly modules: the program the server runs for each, with the SHA-256
-- of its bytes in lowercase hex.
CREATE TABLE bot_modules (
    bot_id BIGINT PRIMARY KEY,
    wasm BYTEA NOT NULL,
    sha256 TEXT NOT NULL,
    uploaded_ms BIGINT NOT NULL
);
