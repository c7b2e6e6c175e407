-- The casino floor, version 2 (docs/floor.md, "One table, one credential"): every call is bound to the
-- session's login role. A credential is enrolled for one table (shoectl floor enrol): it ships, reads its
-- head and raises alarms for that table alone, whatever table name it passes; every entry it ships
-- carries a MAC under the table's key, which the floor checks. Applied in one transaction.

-- One row per enrolment. The key is held as its two HMAC pads (key XOR ipad, key XOR opad, 64 bytes
-- each), which are the key: only the owner reads this table (no grant to any floor_* role), and the
-- SECURITY DEFINER functions below, which run as the owner, use it.
CREATE TABLE floor.credentials (
    role_name      text PRIMARY KEY,
    table_name     text NOT NULL CHECK (table_name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$'),
    key_id         text NOT NULL,
    key_inner      bytea NOT NULL CHECK (length(key_inner) = 64),
    key_outer      bytea NOT NULL CHECK (length(key_outer) = 64),
    legacy_allowed boolean NOT NULL DEFAULT false,
    enrolled_at    timestamptz NOT NULL DEFAULT now(),
    enrolled_by    text NOT NULL DEFAULT session_user,
    revoked_at     timestamptz
);
CREATE UNIQUE INDEX credentials_one_per_table ON floor.credentials (table_name) WHERE revoked_at IS NULL;
REVOKE ALL ON floor.credentials FROM PUBLIC;

-- What the auditor may know of the enrolments: everything but the key.
CREATE VIEW floor.enrolments AS
SELECT role_name, table_name, key_id, legacy_allowed, enrolled_at, enrolled_by, revoked_at FROM floor.credentials;

ALTER TABLE floor.entries ADD COLUMN mac text;
-- Whether this journal has stored an entry with a MAC: from then on every entry needs one (a credential
-- enrolled with --legacy accepts entries without a MAC only before the journal's first one).
ALTER TABLE floor.journals ADD COLUMN macs_seen boolean NOT NULL DEFAULT false;

-- Who caused an alarm: the login role of the session (NULL for alarms from before version 2), and the
-- table it claimed to be when that is not its own. table_name is the table the alarm is about (the
-- credential's own table for a wrong claim, NULL for a role enrolled for no table): never the victim's.
ALTER TABLE floor.alarms ADD COLUMN credential text;
ALTER TABLE floor.alarms ALTER COLUMN credential SET DEFAULT session_user;
ALTER TABLE floor.alarms ADD COLUMN claimed_table text;
ALTER TABLE floor.alarms ALTER COLUMN table_name DROP NOT NULL;
ALTER TABLE floor.alarms DROP CONSTRAINT alarms_alarm_check;
ALTER TABLE floor.alarms ADD CONSTRAINT alarms_alarm_check CHECK (alarm IN ('fork', 'journal-replaced', 'bad-hash',
    'diverged', 'bad-mac', 'wrong-table', 'no-credential'));

-- Every function below names pg_temp last in its search_path: a session's temporary table can never
-- stand in for one of the floor's inside a SECURITY DEFINER function (PostgreSQL docs, "Writing
-- SECURITY DEFINER Functions Safely"); every reference is schema-qualified as well.

-- HMAC-SHA256 (RFC 2104) from the stored pads: sha256(key^opad || sha256(key^ipad || message)).
CREATE FUNCTION floor._pad(key bytea, pad int) RETURNS bytea LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    out bytea := decode(repeat('00', 64), 'hex');
    i int;
BEGIN
    IF length(key) > 64 THEN
        key := sha256(key);
    END IF;
    FOR i IN 0 .. 63 LOOP
        out := set_byte(out, i, (CASE WHEN i < length(key) THEN get_byte(key, i) ELSE 0 END) # pad);
    END LOOP;
    RETURN out;
END $$;

CREATE FUNCTION floor._mac(key_inner bytea, key_outer bytea, digest text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT encode(sha256(key_outer || sha256(key_inner || convert_to(digest, 'UTF8'))), 'hex')
$$;

-- Enrolment, by the owner (shoectl floor enrol creates the login role, then calls this).
CREATE FUNCTION floor.enrol_credential(p_role text, p_table text, p_key bytea, p_key_id text, p_legacy boolean)
RETURNS void LANGUAGE sql SET search_path = floor, pg_catalog, pg_temp AS $$
    INSERT INTO floor.tables (table_name) VALUES (p_table) ON CONFLICT DO NOTHING;
    INSERT INTO floor.credentials (role_name, table_name, key_id, key_inner, key_outer, legacy_allowed)
    VALUES (p_role, p_table, p_key_id, floor._pad(p_key, 54), floor._pad(p_key, 92), p_legacy);
$$;

-- The session's credential (all NULL when it holds none).
CREATE FUNCTION floor._credential() RETURNS floor.credentials
LANGUAGE sql STABLE SET search_path = floor, pg_catalog, pg_temp AS $$
    SELECT * FROM floor.credentials WHERE role_name = session_user AND revoked_at IS NULL
$$;

-- The refusal of a call that claims another table than the session's credential's (c), NULL when the
-- call may go on. The alarm is kept, once per credential and claim.
CREATE FUNCTION floor._claim(c floor.credentials, p_table text, p_what text) RETURNS text
LANGUAGE plpgsql SET search_path = floor, pg_catalog, pg_temp AS $$
DECLARE
    kind text;
    refusal text;
BEGIN
    IF c.role_name IS NULL THEN
        kind := 'no-credential';
        refusal := format('the role %s holds no table credential (never enrolled, or revoked): its %s for table %s '
            'was refused; enrol the table with `shoectl floor enrol` and use the URL it prints', session_user,
            p_what, p_table);
    ELSIF p_table IS DISTINCT FROM c.table_name THEN
        kind := 'wrong-table';
        refusal := format('the credential %s (enrolled for table %s) sent a %s as table %s: refused, table %s''s '
            'journal is untouched; a table may act for itself only', session_user, c.table_name, p_what, p_table,
            p_table);
    ELSE
        RETURN NULL;
    END IF;
    INSERT INTO floor.alarms (table_name, journal_id, seq, alarm, detail, claimed_table)
    SELECT c.table_name, NULL, NULL, kind, refusal, p_table
     WHERE NOT EXISTS (SELECT 1 FROM floor.alarms a WHERE a.credential = session_user AND a.alarm = kind
                       AND a.detail = refusal);
    RETURN refusal;
END $$;

DROP FUNCTION floor.ship(text, text, bigint[], text[], text[], text[], text[], text[], text[]);
DROP FUNCTION floor.head(text, text);
DROP FUNCTION floor.report_divergence(text, text, bigint, text);

-- The receiving side (docs/floor.md, "The receiving side"): as version 1, bound to the session's
-- credential, and every entry's MAC checked under its table's key. A status 'refused' is a call the
-- credential may not make (another table, no credential): nothing of any table is read or changed.
CREATE FUNCTION floor.ship(
    p_table text, p_journal text, p_seq bigint[], p_ts text[], p_kind text[], p_round text[],
    p_data text[], p_prev text[], p_hash text[], p_mac text[]
) RETURNS TABLE (status text, head_seq bigint, head_hash text, detail text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = floor, pg_catalog, pg_temp AS $$
DECLARE
    c floor.credentials;
    refusal text;
    t floor.tables;
    j floor.journals;
    n int := coalesce(array_length(p_seq, 1), 0);
    stored text;
    i int;
BEGIN
    c := floor._credential();
    refusal := floor._claim(c, p_table, 'batch of entries');
    IF refusal IS NOT NULL THEN
        RETURN QUERY SELECT 'refused'::text, 0::bigint, repeat('0', 64), refusal;
        RETURN;
    END IF;
    IF coalesce(array_length(p_mac, 1), 0) <> n THEN
        RAISE EXCEPTION 'floor.ship: % entries but % MACs', n, coalesce(array_length(p_mac, 1), 0);
    END IF;
    SELECT * INTO t FROM floor.tables WHERE table_name = p_table FOR UPDATE;
    IF t.journal_id IS NULL THEN
        UPDATE floor.tables SET journal_id = p_journal WHERE table_name = p_table;
        INSERT INTO floor.journals (table_name, journal_id) VALUES (p_table, p_journal);
    ELSIF t.journal_id <> p_journal THEN
        IF NOT EXISTS (SELECT 1 FROM floor.alarms a WHERE a.table_name = p_table AND a.journal_id = p_journal
                       AND a.alarm = 'journal-replaced') THEN
            INSERT INTO floor.alarms (table_name, journal_id, seq, alarm, detail) VALUES (p_table, p_journal, NULL,
                'journal-replaced', format('table %s ships journal %s, but its journal on the floor is %s '
                '(the table''s journal was replaced): refused, never merged', p_table, p_journal, t.journal_id));
        END IF;
        SELECT * INTO j FROM floor.journals WHERE table_name = p_table AND journal_id = t.journal_id;
        RETURN QUERY SELECT 'replaced'::text, j.head_seq, j.head_hash,
            format('the floor holds journal %s for table %s; this journal (%s) is refused', t.journal_id, p_table, p_journal);
        RETURN;
    END IF;
    SELECT * INTO j FROM floor.journals WHERE table_name = p_table AND journal_id = p_journal FOR UPDATE;
    IF j.state = 'forked' THEN
        RETURN QUERY SELECT 'fork'::text, j.head_seq, j.head_hash,
            (SELECT a.detail FROM floor.alarms a WHERE a.table_name = p_table AND a.journal_id = p_journal
             ORDER BY a.id DESC LIMIT 1);
        RETURN;
    END IF;
    FOR i IN 1 .. n LOOP
        IF p_seq[i] <= j.head_seq THEN
            SELECT e.hash INTO stored FROM floor.entries e
             WHERE e.table_name = p_table AND e.journal_id = p_journal AND e.seq = p_seq[i];
            IF stored = p_hash[i] THEN
                CONTINUE;  -- sent again: already stored, a no-op
            END IF;
            RETURN QUERY SELECT * FROM floor._refuse(j, p_seq[i], 'fork', format(
                'entry %s arrived with hash %s but the floor stored %s for it (edited or rewritten on the table '
                'after it was shipped): refused, never merged', p_seq[i], p_hash[i], stored));
            RETURN;
        ELSIF p_seq[i] > j.head_seq + 1 THEN
            UPDATE floor.journals SET head_seq = j.head_seq, head_hash = j.head_hash, head_ts = j.head_ts,
                macs_seen = j.macs_seen, last_received = clock_timestamp()
             WHERE table_name = p_table AND journal_id = p_journal;
            RETURN QUERY SELECT 'gap'::text, j.head_seq, j.head_hash,
                format('entries %s to %s are missing: send from entry %s', j.head_seq + 1, p_seq[i] - 1, j.head_seq + 1);
            RETURN;
        ELSIF p_prev[i] <> j.head_hash THEN
            RETURN QUERY SELECT * FROM floor._refuse(j, p_seq[i], 'fork', format(
                'entry %s does not continue the chain on the floor: its prev_hash %s is not the hash %s of entry %s '
                '(the journal was rewritten or replaced): refused, never merged',
                p_seq[i], p_prev[i], j.head_hash, j.head_seq));
            RETURN;
        ELSIF floor.entry_hash(p_prev[i], p_seq[i], p_ts[i], p_kind[i], p_round[i], p_data[i]) <> p_hash[i] THEN
            RETURN QUERY SELECT * FROM floor._refuse(j, p_seq[i], 'bad-hash', format(
                'entry %s: its hash does not match its contents (edited on the table): refused', p_seq[i]));
            RETURN;
        ELSIF p_mac[i] IS NULL AND NOT (c.legacy_allowed AND NOT j.macs_seen) THEN
            RETURN QUERY SELECT * FROM floor._refuse(j, p_seq[i], 'bad-mac', format(
                'entry %s carries no MAC, but table %s''s entries must carry one under its key %s (written without '
                'the key, or its MAC stripped by an edit): refused', p_seq[i], p_table, c.key_id));
            RETURN;
        ELSIF p_mac[i] IS NOT NULL AND floor._mac(c.key_inner, c.key_outer, p_hash[i]) <> p_mac[i] THEN
            RETURN QUERY SELECT * FROM floor._refuse(j, p_seq[i], 'bad-mac', format(
                'entry %s: its MAC does not verify under table %s''s key %s (the entry, or one before it, was edited '
                'and the chain recomputed without the key): refused, the floor''s copy is unchanged',
                p_seq[i], p_table, c.key_id));
            RETURN;
        END IF;
        INSERT INTO floor.entries (table_name, journal_id, seq, ts, kind, round_id, data, prev_hash, hash, mac)
        VALUES (p_table, p_journal, p_seq[i], p_ts[i], p_kind[i], p_round[i], p_data[i], p_prev[i], p_hash[i], p_mac[i]);
        j.head_seq := p_seq[i];
        j.head_hash := p_hash[i];
        j.head_ts := p_ts[i];
        j.macs_seen := j.macs_seen OR p_mac[i] IS NOT NULL;
    END LOOP;
    UPDATE floor.journals SET head_seq = j.head_seq, head_hash = j.head_hash, head_ts = j.head_ts,
        macs_seen = j.macs_seen, last_received = clock_timestamp() WHERE table_name = p_table AND journal_id = p_journal;
    RETURN QUERY SELECT 'ok'::text, j.head_seq, j.head_hash, NULL::text;
END $$;

-- A refusal keeps what was stored before it: the head, and whether MACs were seen.
CREATE OR REPLACE FUNCTION floor._refuse(j floor.journals, p_seq bigint, p_alarm text, p_detail text)
RETURNS TABLE (status text, head_seq bigint, head_hash text, detail text)
LANGUAGE plpgsql SET search_path = floor, pg_catalog, pg_temp AS $$
BEGIN
    UPDATE floor.journals SET head_seq = j.head_seq, head_hash = j.head_hash, head_ts = j.head_ts, state = 'forked',
        macs_seen = j.macs_seen, last_received = clock_timestamp()
     WHERE table_name = j.table_name AND journal_id = j.journal_id;
    INSERT INTO floor.alarms (table_name, journal_id, seq, alarm, detail)
        VALUES (j.table_name, j.journal_id, p_seq, p_alarm, p_detail);
    RETURN QUERY SELECT p_alarm, j.head_seq, j.head_hash, p_detail;
END $$;

-- The table's side of an alarm (its local journal no longer holds what the floor stored), for its own
-- table only: 'ok' when kept, else the refusal.
CREATE FUNCTION floor.report_divergence(p_table text, p_journal text, p_seq bigint, p_detail text)
RETURNS text LANGUAGE plpgsql SECURITY DEFINER SET search_path = floor, pg_catalog, pg_temp AS $$
DECLARE
    c floor.credentials;
    refusal text;
BEGIN
    c := floor._credential();
    refusal := floor._claim(c, p_table, 'divergence report');
    IF refusal IS NOT NULL THEN
        RETURN refusal;
    END IF;
    INSERT INTO floor.alarms (table_name, journal_id, seq, alarm, detail)
    SELECT p_table, p_journal, p_seq, 'diverged', left(p_detail, 2000)
     WHERE NOT EXISTS (SELECT 1 FROM floor.alarms a WHERE a.table_name = p_table AND a.alarm = 'diverged'
                       AND a.detail = left(p_detail, 2000));
    RETURN 'ok';
END $$;

-- Where a shipper resumes: its own table's stored head (0 and the genesis hash when none). Another
-- table's head is never returned: state 'refused', the genesis hash, and the refusal in detail.
CREATE FUNCTION floor.head(p_table text, p_journal text)
RETURNS TABLE (head_seq bigint, head_hash text, state text, table_journal text, detail text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = floor, pg_catalog, pg_temp AS $$
DECLARE
    c floor.credentials;
    refusal text;
BEGIN
    c := floor._credential();
    refusal := floor._claim(c, p_table, 'head request');
    IF refusal IS NOT NULL THEN
        RETURN QUERY SELECT 0::bigint, repeat('0', 64), 'refused'::text, NULL::text, refusal;
        RETURN;
    END IF;
    RETURN QUERY
    SELECT coalesce(j.head_seq, 0), coalesce(j.head_hash, repeat('0', 64)), coalesce(j.state, 'new'), t.journal_id,
           NULL::text
      FROM (SELECT p_table AS table_name) q
      LEFT JOIN floor.tables t ON t.table_name = q.table_name
      LEFT JOIN floor.journals j ON j.table_name = q.table_name AND j.journal_id = p_journal;
END $$;

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA floor FROM PUBLIC;
GRANT EXECUTE ON FUNCTION floor.ship(text, text, bigint[], text[], text[], text[], text[], text[], text[], text[]),
    floor.head(text, text), floor.report_divergence(text, text, bigint, text) TO floor_shipper;
GRANT SELECT ON floor.enrolments TO floor_auditor;
