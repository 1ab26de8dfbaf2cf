-- wrk as the null client of bench/nginx_sse.sh (issue 13 item 7): POSTs a completions request
-- like servebench's (16-token prompt, 64 tokens, streamed) and parses nothing of the reply but its
-- HTTP framing. Used by bench/side_by_side.sh -n -w; by hand:
--   wrk -t1 -c100 -d10s -s bench/wrk_post.lua http://127.0.0.1:PORT/v1/completions
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"model":"sim-model","prompt":"alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi",'
  .. '"max_tokens":64,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}'
