#pragma once
// The client's own ceiling on this machine (`servebench selftest`, and the short probe before a
// run): against a zero-delay server over loopback (the caller starts one: the in-process simulator),
// how many SSE token events one worker thread handles per second of its CPU, requests/s, what a
// clock read costs, how late a sleep until an absolute deadline wakes, and the dispatch lag of an
// open-loop schedule. Numbers only; report/selftest_text.hpp words them.
#include "metrics/client_use.hpp"
#include "net/endpoint.hpp"

namespace sb::pipeline {

struct SelftestParams {
  Endpoint endpoint;              // a zero-delay OpenAI-compatible server (the simulator, --cost fixed)
  int threads = 1;                // client worker threads
  double throughput_s = 0.15;     // closed-loop measurement
  int connections_per_thread = 32;
  int tokens_per_request = 64;
  double dispatch_rate = 2000;    // req/s of the open-loop lag measurement
  double dispatch_s = 0.1;
  int timer_sleeps = 50;          // sleeps until absolute deadlines, timer_gap_us apart
  double timer_gap_us = 500;
};

// Runs the three measurements (well under 1 s with the defaults). Throws sb::UserError when the
// server answered no request (the cause in the message).
ClientCeiling measure_ceiling(const SelftestParams& p);

}  // namespace sb::pipeline
