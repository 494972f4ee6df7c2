target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i32 @main_graph(float* noalias nocapture readonly %in0, float* noalias nocapture readonly %in1, float* noalias nocapture %out0, i8* noalias nocapture %workspace) nounwind "target-cpu"="x86-64" {
entry:
	%0 = call i32 @main_graph.k0.add(float* %out0, float* %in0, float* %in1)
	%1 = icmp eq i32 %0, 0
	br i1 %1, label %op.ok.1, label %op.fail.2

op.ok.1:
	ret i32 0

op.fail.2:
	ret i32 %0
}

define internal i32 @main_graph.k0.add(float* noalias nocapture %res, float* noalias nocapture readonly %op0, float* noalias nocapture readonly %op1) noinline nounwind "target-cpu"="x86-64" {
entry:
	br label %d0.header.1

d0.header.1:
	%0 = phi i64 [ 0, %entry ], [ %15, %d1.exit.6 ]
	%1 = icmp sle i64 %0, 3
	br i1 %1, label %d0.body.2, label %d0.exit.3

d0.body.2:
	br label %d1.header.4

d0.exit.3:
	ret i32 0

d1.header.4:
	%2 = phi i64 [ 0, %d0.body.2 ], [ %14, %d1.body.5 ]
	%3 = icmp sle i64 %2, 39
	br i1 %3, label %d1.body.5, label %d1.exit.6

d1.body.5:
	%4 = mul i64 %0, 40
	%5 = add i64 %4, %2
	%6 = mul i64 %0, 40
	%7 = add i64 %6, %2
	%8 = getelementptr float, float* %op0, i64 %7
	%9 = load float, float* %8, align 4
	%10 = getelementptr float, float* %op1, i64 %2
	%11 = load float, float* %10, align 4
	%12 = fadd float %9, %11
	%13 = getelementptr float, float* %res, i64 %5
	store float %12, float* %13, align 4
	%14 = add i64 %2, 1
	br label %d1.header.4

d1.exit.6:
	%15 = add i64 %0, 1
	br label %d0.header.1
}

define i64 @main_graph_workspace_size() nounwind "target-cpu"="x86-64" {
entry:
	ret i64 0
}
