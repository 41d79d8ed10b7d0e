%% ctxbench runtime probe for Erlang/BEAM processes.
%%
%% What one op is, per bench (CTXBENCH_BENCH):
%%   pingpong  one round trip between two processes: {ping, Self} sent to the peer, the peer
%%             answers pong and the pinger receives it = 2 hops (each hop is one process
%%             blocking in receive and the other one running).
%%   ring      one pass of the token from a process to the next one in a ring of
%%             CTXBENCH_RING processes = 1 hop (Armstrong, "Programming Erlang", ch. 8:
%%             N processes in a ring, a message sent round M times).
%%   spawn     spawn/1 of a process that runs until it blocks in its first receive; the child
%%             tells its parent it started (one message), so the op includes that send.
%%   memory    erlang:memory(processes) delta per parked process, CTXBENCH_CONTEXTS of them,
%%             after garbage collection (the method of the Erlang Efficiency Guide,
%%             "Processes"); a second line gives the OS resident set delta.
%% Method: the timed loop runs in the measuring process itself and is read with
%% erlang:monotonic_time(nanosecond) around a batch of ops (LShift 2006 "How fast can Erlang
%% send messages?"). Mailboxes stay empty so no selective receive scans a queue.
%% Schedulers are set by the caller with +S N:N and read back here, not trusted.
%% Output: one JSON line per measured block, format ctxbench-probe/1 (docs/probes.md).
-module(ctxbench_probe).
-export([main/0]).

main() ->
    Status =
        try
            run(list_to_atom(env("CTXBENCH_BENCH", "")))
        catch
            throw:{bad_input, Msg} ->
                io:format(standard_error, "ctxbench probe: ~s~n", [Msg]),
                2;
            Class:Reason:Stack ->
                io:format(standard_error, "ctxbench probe: ~p:~p ~p~n", [Class, Reason, Stack]),
                3
        end,
    erlang:halt(Status).

%% ---------------------------------------------------------------- parameters

env(Name, Default) ->
    case os:getenv(Name) of
        false -> Default;
        "" -> Default;
        V -> V
    end.

env_int(Name, Default) ->
    V = env(Name, integer_to_list(Default)),
    case string:to_integer(V) of
        {I, ""} when I >= 0 -> I;
        _ -> throw({bad_input, Name ++ " must be a non-negative integer, got " ++ V})
    end.

params() ->
    #{iterations => env_int("CTXBENCH_ITERATIONS", 0),
      samples => max(1, env_int("CTXBENCH_SAMPLES", 10)),
      warmup => env_int("CTXBENCH_WARMUP", 1),
      target_ns => max(1000, env_int("CTXBENCH_TARGET_NS", 20000000)),
      contexts => max(1, env_int("CTXBENCH_CONTEXTS", 100000)),
      ring => max(2, env_int("CTXBENCH_RING", 1000))}.

settings(Extra) ->
    maps:merge(
      #{otp_release => list_to_binary(erlang:system_info(otp_release)),
        erts_version => list_to_binary(erlang:system_info(version)),
        emu_flavor => erlang:system_info(emu_flavor),
        schedulers => erlang:system_info(schedulers),
        schedulers_online => erlang:system_info(schedulers_online),
        scheduler_bind_type => erlang:system_info(scheduler_bind_type)},
      Extra).

%% ---------------------------------------------------------------- benches

run(pingpong) ->
    P = params(),
    Peer = spawn(fun pong/0),
    Msg = {ping, self()},
    Fun = fun(N) -> timed(fun() -> ping_loop(Peer, Msg, N) end) end,
    Block = measure(Fun, P),
    Peer ! stop,
    emit_switch(pingpong, "round trip: {ping,Self} to a peer process, pong back", 2,
                settings(#{}), Block),
    0;
run(ring) ->
    P = #{ring := R} = params(),
    First = make_ring(R),
    Fun = fun(N) -> timed(fun() -> First ! {token, N}, receive ring_done -> ok end end) end,
    Block = measure(Fun, P),
    First ! stop,
    emit_switch(ring, "one token pass to the next process in the ring", 1,
                settings(#{ring_size => R}), Block),
    0;
run(spawn) ->
    P = params(),
    _ = baseline_get(),
    Fun = fun(N) ->
                  Before = erlang:system_info(process_count),
                  T = timed(fun() -> spawn_parked(N) end),
                  release_parked(Before),
                  T
          end,
    Block = measure(Fun, P),
    emit_spawn(spawn, "spawn/1 of a process that runs to its first receive "
                      "(includes one started message to the parent)",
               settings(#{}), Block),
    0;
run(memory) ->
    #{contexts := K, samples := S, warmup := W} = params(),
    Runs = [memory_sample(K) || _ <- lists:seq(1, S + W)],
    {_, Timed} = lists:split(W, Runs),
    Extra = settings(#{contexts => K,
                       process_info_memory_bytes => lists:last([I || {_, _, I} <- Timed])}),
    Op = "one parked process blocked in receive",
    emit_memory(memory, Op, "erlang:memory(processes) delta after garbage_collect",
                Extra, K, W, [B || {B, _, _} <- Timed]),
    emit_memory(memory, Op, "VmRSS delta of the BEAM OS process",
                Extra, K, W, [R || {_, R, _} <- Timed]),
    0;
run(Other) ->
    throw({bad_input, "unknown CTXBENCH_BENCH " ++ atom_to_list(Other) ++
               " (want pingpong, ring, spawn or memory)"}).

%% ---------------------------------------------------------------- pingpong

pong() ->
    receive
        {ping, From} ->
            From ! pong,
            pong();
        stop ->
            ok
    end.

ping_loop(_, _, 0) ->
    ok;
ping_loop(Peer, Msg, N) ->
    Peer ! Msg,
    receive pong -> ok end,
    ping_loop(Peer, Msg, N - 1).

%% ---------------------------------------------------------------- ring

%% make_ring spawns R processes, each forwarding {token, K} to the next one with K-1; the
%% process that sees K =:= 0 tells the measuring process. Returns the first process.
make_ring(R) ->
    Main = self(),
    Last = spawn(fun() -> ring_node(Main, undefined) end),
    First = lists:foldl(fun(_, Next) -> spawn(fun() -> ring_node(Main, Next) end) end,
                        Last, lists:seq(1, R - 1)),
    Last ! {next, First},
    First.

ring_node(Main, undefined) ->
    receive {next, Next} -> ring_node(Main, Next) end;
ring_node(Main, Next) ->
    receive
        {token, 0} ->
            Main ! ring_done,
            ring_node(Main, Next);
        {token, K} ->
            Next ! {token, K - 1},
            ring_node(Main, Next);
        stop ->
            Next ! stop
    end.

%% ---------------------------------------------------------------- spawn and memory

spawn_parked(N) ->
    Self = self(),
    spawn_n(N, Self),
    wait_started(N).

spawn_n(0, _) ->
    ok;
spawn_n(N, Parent) ->
    spawn(fun() -> Parent ! started, receive stop -> ok end end),
    spawn_n(N - 1, Parent).

wait_started(0) -> ok;
wait_started(N) -> receive started -> wait_started(N - 1) end.

%% release_parked kills every process started since the count was Before and waits until
%% they are gone, so the next sample starts from the same state.
release_parked(Before) ->
    Base = lists:sort(baseline_get()),
    New = ordsets:subtract(lists:sort(erlang:processes()), Base),
    [exit(Pid, kill) || Pid <- New, Pid =/= self()],
    wait_count(Before).

wait_count(Before) ->
    case erlang:system_info(process_count) =< Before of
        true -> ok;
        false -> erlang:yield(), wait_count(Before)
    end.

baseline_get() ->
    case get(baseline) of
        undefined -> Ps = erlang:processes(), put(baseline, Ps), Ps;
        Ps -> Ps
    end.

memory_sample(K) ->
    _ = baseline_get(),
    Before = erlang:system_info(process_count),
    erlang:garbage_collect(),
    M0 = erlang:memory(processes),
    R0 = vm_rss(),
    spawn_parked(K),
    erlang:garbage_collect(),
    M1 = erlang:memory(processes),
    R1 = vm_rss(),
    One = hd(ordsets:subtract(lists:sort(erlang:processes()), lists:sort(baseline_get()))),
    {memory, Info} = erlang:process_info(One, memory),
    release_parked(Before),
    {M1 - M0, R1 - R0, Info}.

vm_rss() ->
    {ok, Bin} = file:read_file("/proc/self/status"),
    [Line] = [L || L <- binary:split(Bin, <<"\n">>, [global]), binary:part(L, 0, min(6, byte_size(L))) =:= <<"VmRSS:">>],
    [_, Kb, _] = binary:split(Line, [<<" ">>, <<"\t">>], [global, trim_all]),
    binary_to_integer(Kb) * 1024.

%% ---------------------------------------------------------------- measurement core

timed(F) ->
    T0 = erlang:monotonic_time(nanosecond),
    F(),
    erlang:monotonic_time(nanosecond) - T0.

%% measure runs calibration (when iterations is 0), the untimed warm-up samples and the timed
%% samples. Calibration grows N until one run takes a quarter of the target, then scales N
%% so that a sample lasts about target_ns. Returns {N, Warmup, Samples, TotalOps, Csw}.
measure(Fun, #{iterations := I, samples := S, warmup := W, target_ns := Target}) ->
    {N, CalOps} = case I of
                      0 -> calibrate(Fun, Target, 1, 0);
                      _ -> {I, 0}
                  end,
    {N2, WarmOps} = warm(Fun, I, Target, N, W, 0),
    C0 = ctx_switches(),
    Samples = [Fun(N2) || _ <- lists:seq(1, S)],
    C1 = ctx_switches(),
    {N2, W, Samples, CalOps + WarmOps + N2 * S, C1 - C0}.

%% Warm-up samples also re-aim N at the target when calibrating (later runs can be faster).
warm(_, _, _, N, 0, Ops) ->
    {N, Ops};
warm(Fun, I, Target, N, W, Ops) ->
    T = max(1, Fun(N)),
    N2 = case I =:= 0 andalso (T < Target div 2 orelse T > Target * 2) of
             true -> reaim(N, T, Target);
             false -> N
         end,
    warm(Fun, I, Target, N2, W - 1, Ops + N).

calibrate(Fun, Target, N, Ops) ->
    T = max(1, Fun(N)),
    if
        T >= Target div 4 orelse N >= 1 bsl 40 ->
            {reaim(N, T, Target), Ops + N};
        T < Target div 100 ->
            calibrate(Fun, Target, N * 10, Ops + N);
        true ->
            calibrate(Fun, Target, N * 2, Ops + N)
    end.

%% reaim scales N so a run lasts about Target, shrinking it by at most half per step: noise
%% only ever makes a run slower, so one run stretched by a noisy neighbour must not shrink the
%% samples to nothing.
reaim(N, T, Target) ->
    max(1, max(N div 2, round(N * Target / T))).

%% ctx_switches sums voluntary and involuntary OS context switches over every thread of the
%% BEAM process (the same count getrusage(RUSAGE_SELF) gives, which Erlang does not expose).
ctx_switches() ->
    case file:list_dir("/proc/self/task") of
        {ok, Tids} -> lists:sum([task_csw(T) || T <- Tids]);
        _ -> 0
    end.

task_csw(Tid) ->
    case file:read_file("/proc/self/task/" ++ Tid ++ "/status") of
        {ok, Bin} ->
            lists:sum([binary_to_integer(lists:last(binary:split(L, [<<"\t">>, <<" ">>], [global, trim_all])))
                       || L <- binary:split(Bin, <<"\n">>, [global]),
                          is_csw_line(L)]);
        _ -> 0
    end.

is_csw_line(<<"voluntary_ctxt_switches:", _/binary>>) -> true;
is_csw_line(<<"nonvoluntary_ctxt_switches:", _/binary>>) -> true;
is_csw_line(_) -> false.

%% ---------------------------------------------------------------- output

emit_switch(Name, Op, Hops, Settings, {N, W, Samples, Total, Csw}) ->
    emit([{format, <<"ctxbench-probe/1">>}, {kind, switch}, {name, name(Name)},
          {op, list_to_binary(Op)}, {hops_per_op, Hops}, {iterations, N},
          {warmup_samples, W}, {total_ops, Total}, {ctx_switches, Csw},
          {settings, Settings}, {samples_ns, Samples}]).

emit_spawn(Name, Op, Settings, {N, W, Samples, Total, Csw}) ->
    emit([{format, <<"ctxbench-probe/1">>}, {kind, spawn}, {name, name(Name)},
          {op, list_to_binary(Op)}, {iterations, N},
          {warmup_samples, W}, {total_ops, Total}, {ctx_switches, Csw},
          {settings, Settings}, {samples_ns, Samples}]).

emit_memory(Name, Op, Metric, Settings, K, W, Samples) ->
    emit([{format, <<"ctxbench-probe/1">>}, {kind, memory}, {name, name(Name)},
          {op, list_to_binary(Op)}, {metric, list_to_binary(Metric)}, {iterations, K},
          {warmup_samples, W}, {total_ops, K * (W + length(Samples))},
          {settings, Settings}, {samples_bytes, Samples}]).

name(Bench) -> list_to_binary("erlang/" ++ atom_to_list(Bench)).

emit(Fields) ->
    io:put_chars([json({obj, Fields}), $\n]).

%% A small JSON encoder for the few shapes the line format uses (OTP 25 has no json module).
json({obj, Fields}) ->
    [${, lists:join($,, [[json(atom_to_binary(K)), $:, json(V)] || {K, V} <- Fields]), $}];
json(M) when is_map(M) ->
    json({obj, lists:sort(maps:to_list(M))});
json(L) when is_list(L) ->
    [$[, lists:join($,, [json(V) || V <- L]), $]];
json(true) -> <<"true">>;
json(false) -> <<"false">>;
json(A) when is_atom(A) -> json(atom_to_binary(A));
json(I) when is_integer(I) -> integer_to_binary(I);
json(F) when is_float(F) -> float_to_binary(F, [short]);
json(B) when is_binary(B) ->
    [$", [esc(C) || <<C>> <= B], $"].

esc($") -> <<"\\\"">>;
esc($\\) -> <<"\\\\">>;
esc(C) when C < 32 -> io_lib:format("\\u~4.16.0b", [C]);
esc(C) -> C.
