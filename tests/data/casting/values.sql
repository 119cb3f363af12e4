-- Copyright (c) 2026 The replicant authors
-- SPDX-License-Identifier: MIT
--
-- The values behind roundtrip.tsv (see generate.sh). Each row is one value, rendered by its type's
-- output function (what pgoutput sends in text mode) and its send function (binary mode).

-- The settings replicant pins on the replication connection (PROTOCOL.md section 1.1), plus the C
-- money locale, which the binary money rule assumes.
SET client_encoding = 'UTF8';
SET datestyle = 'ISO';
SET intervalstyle = 'postgres';
SET timezone = 'UTC';
SET extra_float_digits = 3;
SET bytea_output = 'hex';
SET lc_monetary = 'C';

CREATE FUNCTION pg_temp.fixture(label text, v anyelement) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  out_fn regproc;
  send_fn regproc;
  txt text;
  bin bytea;
BEGIN
  SELECT typoutput, typsend INTO out_fn, send_fn FROM pg_type WHERE oid = pg_typeof(v);
  -- Call the output function itself: a ::text cast would strip bpchar's padding.
  EXECUTE format('SELECT %s($1)::text', out_fn) INTO txt USING v;
  EXECUTE format('SELECT %s($1)', send_fn) INTO bin USING v;
  RETURN label || E'\t' || pg_typeof(v)::oid || E'\t' || encode(convert_to(txt, 'UTF8'), 'hex')
         || E'\t' || encode(bin, 'hex');
END $$;

-- bool, integers, oid
SELECT pg_temp.fixture('bool true', true);
SELECT pg_temp.fixture('bool false', false);
SELECT pg_temp.fixture('int2 min', (-32768)::int2);
SELECT pg_temp.fixture('int2 max', 32767::int2);
SELECT pg_temp.fixture('int2 zero', 0::int2);
SELECT pg_temp.fixture('int4 min', (-2147483648)::int4);
SELECT pg_temp.fixture('int4 max', 2147483647::int4);
SELECT pg_temp.fixture('int8 min', (-9223372036854775808)::int8);
SELECT pg_temp.fixture('int8 max', 9223372036854775807::int8);
SELECT pg_temp.fixture('oid zero', 0::oid);
SELECT pg_temp.fixture('oid max', 4294967295::oid);

-- floats
SELECT pg_temp.fixture('float4 1.5', 1.5::float4);
SELECT pg_temp.fixture('float4 0.1', 0.1::float4);
SELECT pg_temp.fixture('float4 NaN', 'NaN'::float4);
SELECT pg_temp.fixture('float4 Infinity', 'Infinity'::float4);
SELECT pg_temp.fixture('float4 -Infinity', '-Infinity'::float4);
SELECT pg_temp.fixture('float4 max', 3.4028235e38::float4);
SELECT pg_temp.fixture('float4 denormal min', 1.4e-45::float4);
SELECT pg_temp.fixture('float4 1e6', 1e6::float4);
SELECT pg_temp.fixture('float4 123456.7', 123456.7::float4);
SELECT pg_temp.fixture('float4 -0', '-0'::float4);
SELECT pg_temp.fixture('float8 0.1', 0.1::float8);
SELECT pg_temp.fixture('float8 1e100', 1e100::float8);
SELECT pg_temp.fixture('float8 denormal min', 5e-324::float8);
SELECT pg_temp.fixture('float8 max', 1.7976931348623157e308::float8);
SELECT pg_temp.fixture('float8 NaN', 'NaN'::float8);
SELECT pg_temp.fixture('float8 Infinity', 'Infinity'::float8);
SELECT pg_temp.fixture('float8 -Infinity', '-Infinity'::float8);
SELECT pg_temp.fixture('float8 -0', '-0'::float8);
SELECT pg_temp.fixture('float8 1e15', 1e15::float8);
SELECT pg_temp.fixture('float8 fixed 15 digits', 123456789012345.6::float8);
SELECT pg_temp.fixture('float8 1e-5', 0.00001::float8);
SELECT pg_temp.fixture('float8 0.0001', 0.0001::float8);
SELECT pg_temp.fixture('float8 pi', pi());

-- numeric
SELECT pg_temp.fixture('numeric zero', 0::numeric);
SELECT pg_temp.fixture('numeric zero scale 3', 0.000::numeric);
SELECT pg_temp.fixture('numeric negative', (-12345.678)::numeric);
SELECT pg_temp.fixture('numeric trailing zero', 1.50::numeric);
SELECT pg_temp.fixture('numeric 10000', 10000::numeric);
SELECT pg_temp.fixture('numeric 0.0001', 0.0001::numeric);
SELECT pg_temp.fixture('numeric -0.00001', (-0.00001)::numeric);
SELECT pg_temp.fixture('numeric NaN', 'NaN'::numeric);
SELECT pg_temp.fixture('numeric Infinity', 'Infinity'::numeric);
SELECT pg_temp.fixture('numeric -Infinity', '-Infinity'::numeric);
SELECT pg_temp.fixture('numeric wide', 123456789012345678901234567890.000000000000000000000000000001::numeric);
SELECT pg_temp.fixture('numeric 1000 digits', (repeat('9', 1000))::numeric);
SELECT pg_temp.fixture('numeric scale 1000', ('0.' || repeat('0', 999) || '1')::numeric);
SELECT pg_temp.fixture('numeric 1/3 scale 500', round(1::numeric / 3, 500));
SELECT pg_temp.fixture('numeric huge scale trailing zeros', ('1.' || repeat('0', 4000))::numeric);

-- money (C locale)
SELECT pg_temp.fixture('money grouped', 1234.56::money);
SELECT pg_temp.fixture('money negative', (-5)::money);
SELECT pg_temp.fixture('money zero', 0::money);
SELECT pg_temp.fixture('money cents', 0.05::money);
SELECT pg_temp.fixture('money negative cents', (-0.05)::money);
SELECT pg_temp.fixture('money max', '92233720368547758.07'::money);
SELECT pg_temp.fixture('money min', '-92233720368547758.08'::money);

-- strings
SELECT pg_temp.fixture('text empty', ''::text);
SELECT pg_temp.fixture('text plain', 'hello'::text);
SELECT pg_temp.fixture('text unicode', 'héllo ☃ 𝄞'::text);
SELECT pg_temp.fixture('text special', E'tab\there "quoted" back\\slash\nnewline'::text);
SELECT pg_temp.fixture('text NULL word', 'NULL'::text);
SELECT pg_temp.fixture('varchar', 'varying'::varchar(20));
SELECT pg_temp.fixture('bpchar padded', 'ab'::char(5));
SELECT pg_temp.fixture('name', 'relname'::name);
SELECT pg_temp.fixture('char ascii', 'a'::"char");
SELECT pg_temp.fixture('char high bit', '\351'::"char");
SELECT pg_temp.fixture('char empty', ''::"char");
SELECT pg_temp.fixture('xml', '<a b="1">x</a>'::xml);

-- bytea
SELECT pg_temp.fixture('bytea empty', '\x'::bytea);
SELECT pg_temp.fixture('bytea deadbeef', '\xdeadbeef'::bytea);
SELECT pg_temp.fixture('bytea all bytes', (SELECT string_agg(set_byte('\x00'::bytea, 0, b), ''::bytea) FROM generate_series(0, 255) b));

-- json
SELECT pg_temp.fixture('json spacing kept', '  {"a" : [1, "x"]}  '::json);
SELECT pg_temp.fixture('jsonb normalised', '{"b": 1, "a": [true, null, "é"]}'::jsonb);
SELECT pg_temp.fixture('jsonb scalar', '"str"'::jsonb);

-- date
SELECT pg_temp.fixture('date leap day', '2024-02-29'::date);
SELECT pg_temp.fixture('date epoch', '2000-01-01'::date);
SELECT pg_temp.fixture('date unix epoch', '1970-01-01'::date);
SELECT pg_temp.fixture('date infinity', 'infinity'::date);
SELECT pg_temp.fixture('date -infinity', '-infinity'::date);
SELECT pg_temp.fixture('date BC', '0044-03-15 BC'::date);
SELECT pg_temp.fixture('date 1 BC leap day', '0001-02-29 BC'::date);
SELECT pg_temp.fixture('date first', '4714-11-24 BC'::date);
SELECT pg_temp.fixture('date last', '5874897-12-31'::date);
SELECT pg_temp.fixture('date year 12345', '12345-06-07'::date);
SELECT pg_temp.fixture('date year 1', '0001-01-01'::date);

-- time
SELECT pg_temp.fixture('time midnight', '00:00:00'::time);
SELECT pg_temp.fixture('time 24:00', '24:00:00'::time);
SELECT pg_temp.fixture('time fraction', '13:14:15.0001'::time);
SELECT pg_temp.fixture('time last micro', '23:59:59.999999'::time);

-- timestamp
SELECT pg_temp.fixture('timestamp micros', '2024-01-02 03:04:05.123456'::timestamp);
SELECT pg_temp.fixture('timestamp half second', '1999-12-31 23:59:59.5'::timestamp);
SELECT pg_temp.fixture('timestamp infinity', 'infinity'::timestamp);
SELECT pg_temp.fixture('timestamp -infinity', '-infinity'::timestamp);
SELECT pg_temp.fixture('timestamp BC', '0044-03-15 12:00:00 BC'::timestamp);
SELECT pg_temp.fixture('timestamp first', '4714-11-24 00:00:00 BC'::timestamp);
SELECT pg_temp.fixture('timestamp last', '294276-12-31 23:59:59.999999'::timestamp);
SELECT pg_temp.fixture('timestamp year 10000', '10000-01-01 00:00:00'::timestamp);

-- timestamptz
SELECT pg_temp.fixture('timestamptz micros', '2024-01-02 03:04:05.123456+00'::timestamptz);
SELECT pg_temp.fixture('timestamptz fraction', '2024-01-02 03:04:05.12+00'::timestamptz);
SELECT pg_temp.fixture('timestamptz from offset', '2024-01-02 03:04:05+05:30'::timestamptz);
SELECT pg_temp.fixture('timestamptz infinity', 'infinity'::timestamptz);
SELECT pg_temp.fixture('timestamptz -infinity', '-infinity'::timestamptz);
SELECT pg_temp.fixture('timestamptz BC', '0044-03-15 12:00:00.5+00 BC'::timestamptz);
SELECT pg_temp.fixture('timestamptz first', '4714-11-24 00:00:00+00 BC'::timestamptz);
SELECT pg_temp.fixture('timestamptz last', '294276-12-31 23:59:59.999999+00'::timestamptz);

-- timetz (raw text)
SELECT pg_temp.fixture('timetz half hour offset', '12:00:00+05:30'::timetz);
SELECT pg_temp.fixture('timetz negative offset', '12:00:00.25-03'::timetz);
SELECT pg_temp.fixture('timetz utc', '00:00:00+00'::timetz);
SELECT pg_temp.fixture('timetz seconds offset', '23:59:59.999999+14:59:59'::timetz);
SELECT pg_temp.fixture('timetz 24:00', '24:00:00-15:59'::timetz);

-- interval (raw text, IntervalStyle=postgres)
SELECT pg_temp.fixture('interval all fields', '1 year 2 mons 3 days 04:05:06.789'::interval);
SELECT pg_temp.fixture('interval mixed signs', '-1 day 2 hours'::interval);
SELECT pg_temp.fixture('interval all negative', '-1 year -2 days -00:00:01'::interval);
SELECT pg_temp.fixture('interval zero', '0'::interval);
SELECT pg_temp.fixture('interval mon minus day', '1 mon -1 day'::interval);
SELECT pg_temp.fixture('interval minus micro', '-00:00:00.000001'::interval);
SELECT pg_temp.fixture('interval one each', '1 year 1 mon 1 day 01:00:00'::interval);
SELECT pg_temp.fixture('interval day minus second', '1 day -00:00:01'::interval);
SELECT pg_temp.fixture('interval negative day plus second', '-1 days 00:00:01'::interval);
SELECT pg_temp.fixture('interval year minus month', '1 year -1 mons'::interval);
SELECT pg_temp.fixture('interval half second', '3 days -00:00:00.5'::interval);
SELECT pg_temp.fixture('interval max time', '2562047788:00:54.775807'::interval);
SELECT pg_temp.fixture('interval min time', '-2562047788:00:54.775807'::interval);
SELECT pg_temp.fixture('interval max months', '178956970 years 7 mons'::interval);
SELECT pg_temp.fixture('interval min months', '-178956970 years -8 mons'::interval);
SELECT pg_temp.fixture('interval max days', '2147483647 days'::interval);
SELECT pg_temp.fixture('interval min days', '-2147483648 days'::interval);

-- uuid
SELECT pg_temp.fixture('uuid', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid);
SELECT pg_temp.fixture('uuid nil', '00000000-0000-0000-0000-000000000000'::uuid);

-- arrays of every cast type, 1-D to 3-D, NULLs, quoting, bounds, empty
SELECT pg_temp.fixture('bool[] with NULL', ARRAY[true, false, NULL]);
SELECT pg_temp.fixture('bytea[]', ARRAY['\xdead'::bytea, '\x'::bytea, NULL]);
SELECT pg_temp.fixture('char[]', ARRAY['x'::"char", '\351'::"char"]);
SELECT pg_temp.fixture('name[]', ARRAY['nm'::name, 'with space'::name]);
SELECT pg_temp.fixture('int2[] 2-D', '{{1,2},{3,NULL}}'::int2[]);
SELECT pg_temp.fixture('int4[] bounds', '[0:1]={1,2}'::int4[]);
SELECT pg_temp.fixture('int4[] 2-D bounds', '[2:3][-1:0]={{1,2},{3,4}}'::int4[]);
SELECT pg_temp.fixture('int4[] 3-D', '{{{1,2},{3,4}},{{5,6},{NULL,8}}}'::int4[]);
SELECT pg_temp.fixture('int4[] empty', '{}'::int4[]);
SELECT pg_temp.fixture('int8[] extremes', ARRAY[-9223372036854775808, 9223372036854775807]::int8[]);
SELECT pg_temp.fixture('text[] quoting', ARRAY['', 'NULL', 'null', NULL, 'a b', 'q"x', 'b\s', 'a,b', '{x}', E'tab\t', 'plain']::text[]);
SELECT pg_temp.fixture('text[] 2-D', '{{a,"b c"},{NULL,"d\"e\\f"}}'::text[]);
SELECT pg_temp.fixture('varchar[]', ARRAY['v1', 'v 2']::varchar[]);
SELECT pg_temp.fixture('bpchar[]', ARRAY['ab'::char(3), 'c'::char(3)]);
SELECT pg_temp.fixture('float4[]', ARRAY[1.5, 'NaN', '-Infinity', NULL]::float4[]);
SELECT pg_temp.fixture('float8[] 2-D', '{{0.1,Infinity},{-0,NaN}}'::float8[]);
SELECT pg_temp.fixture('oid[]', ARRAY[0, 4294967295]::oid[]);
SELECT pg_temp.fixture('numeric[]', ARRAY[1.50, 'NaN', '-Infinity', NULL, -0.001]::numeric[]);
SELECT pg_temp.fixture('numeric[] 2-D', '{{1.5,2.25},{NULL,Infinity}}'::numeric[]);
SELECT pg_temp.fixture('date[]', ARRAY['0044-03-15 BC', 'infinity', '2024-02-29', NULL]::date[]);
SELECT pg_temp.fixture('time[]', ARRAY['10:00:01.5', '24:00:00']::time[]);
SELECT pg_temp.fixture('timestamp[]', ARRAY['2020-01-01 10:00', '-infinity', '0044-03-15 12:00:00 BC']::timestamp[]);
SELECT pg_temp.fixture('timestamptz[] 2-D', '{{"2024-01-01 00:00:00+00",infinity},{NULL,"2024-06-01 12:30:00.5+00"}}'::timestamptz[]);
SELECT pg_temp.fixture('interval[]', ARRAY['1 day', '-1 days +02:00', '0', NULL]::interval[]);
SELECT pg_temp.fixture('interval[] 2-D', '{{"1 year","-00:00:01"},{"2 mons",NULL}}'::interval[]);
SELECT pg_temp.fixture('timetz[]', ARRAY['12:00+05', '23:59:59.5-03:30']::timetz[]);
SELECT pg_temp.fixture('uuid[]', ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', NULL]::uuid[]);
SELECT pg_temp.fixture('json[]', ARRAY['{"a":1}', '[1, 2]', NULL]::json[]);
SELECT pg_temp.fixture('jsonb[] 2-D', '{{"{\"a\": [1, \"x\"]}",null},{"\"s\"","[]"}}'::jsonb[]);
SELECT pg_temp.fixture('money[]', ARRAY[1.5, -1234.56, NULL]::money[]);
SELECT pg_temp.fixture('xml[]', ARRAY['<a/>', '<b>t</b>']::xml[]);

-- PostgreSQL 17 added infinite intervals.
SELECT current_setting('server_version_num')::int >= 170000 AS has_infinite_interval \gset
\if :has_infinite_interval
SELECT pg_temp.fixture('interval infinity (17+)', 'infinity'::interval);
SELECT pg_temp.fixture('interval -infinity (17+)', '-infinity'::interval);
SELECT pg_temp.fixture('interval[] infinities (17+)', ARRAY['infinity', '-infinity', '1 day']::interval[]);
\endif
