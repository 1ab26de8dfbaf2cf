#!/bin/sh
# A fake profiler wrapper for tests/e2e/tune_test.cpp, as rocprof wraps a server: it leaves a helper
# process behind in the group (a background sleep, which a non-interactive shell starts with SIGINT
# ignored), writes a header-only trace into the folder given first, and runs the rest as the server.
dir="$1"
shift
sleep 60 &
echo '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"' > "$dir/prof_kernel_trace.csv"
"$@"
