target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i32 @main_graph(float* noalias nocapture readonly %in0, i64* noalias nocapture readonly %in1, i8* noalias nocapture %out0, i8* noalias nocapture %workspace) nounwind "target-cpu"="x86-64" {
entry:
	%0 = getelementptr i8, i8* %workspace, i64 0
	%1 = bitcast i8* %0 to float*
	%2 = call i32 @main_graph.k0.generic(float* %1, float* %in0, i64* %in1)
	%3 = icmp eq i32 %2, 0
	br i1 %3, label %op.ok.1, label %op.fail.2

op.ok.1:
	%4 = call i32 @main_graph.k1.generic(i8* %out0, float* %1)
	%5 = icmp eq i32 %4, 0
	br i1 %5, label %op.ok.3, label %op.fail.4

op.fail.2:
	ret i32 %2

op.ok.3:
	ret i32 0

op.fail.4:
	ret i32 %4
}

define internal i32 @main_graph.k0.generic(float* noalias nocapture %res, float* noalias nocapture readonly %op0, i64* noalias nocapture readonly %op1) noinline nounwind "target-cpu"="x86-64" {
entry:
	br label %d0.header.1

d0.header.1:
	%0 = phi i64 [ 0, %entry ], [ %11, %d1.exit.6 ]
	%1 = icmp sle i64 %0, 3
	br i1 %1, label %d0.body.2, label %d0.exit.3

d0.body.2:
	br label %d1.header.4

d0.exit.3:
	ret i32 0

d1.header.4:
	%2 = phi i64 [ 0, %d0.body.2 ], [ %17, %dynread.ok.7 ]
	%3 = icmp sle i64 %2, 2
	br i1 %3, label %d1.body.5, label %d1.exit.6

d1.body.5:
	%4 = mul i64 %0, 3
	%5 = add i64 %4, %2
	%6 = getelementptr i64, i64* %op1, i64 %0
	%7 = load i64, i64* %6, align 8
	%8 = icmp ult i64 %7, 5
	%9 = icmp ult i64 %2, 3
	%10 = and i1 %8, %9
	br i1 %10, label %dynread.ok.7, label %fail.2

d1.exit.6:
	%11 = add i64 %0, 1
	br label %d0.header.1

dynread.ok.7:
	%12 = mul i64 %7, 3
	%13 = add i64 %12, %2
	%14 = getelementptr float, float* %op0, i64 %13
	%15 = load float, float* %14, align 4
	%16 = getelementptr float, float* %res, i64 %5
	store float %15, float* %16, align 4
	%17 = add i64 %2, 1
	br label %d1.header.4

fail.2:
	ret i32 2
}

define internal i32 @main_graph.k1.generic(i8* noalias nocapture %res, float* noalias nocapture readonly %op0) noinline nounwind "target-cpu"="x86-64" {
entry:
	br label %d0.header.1

d0.header.1:
	%0 = phi i64 [ 0, %entry ], [ %14, %d1.exit.6 ]
	%1 = icmp sle i64 %0, 3
	br i1 %1, label %d0.body.2, label %d0.exit.3

d0.body.2:
	br label %d1.header.4

d0.exit.3:
	ret i32 0

d1.header.4:
	%2 = phi i64 [ 0, %d0.body.2 ], [ %13, %d1.body.5 ]
	%3 = icmp sle i64 %2, 2
	br i1 %3, label %d1.body.5, label %d1.exit.6

d1.body.5:
	%4 = mul i64 %0, 3
	%5 = add i64 %4, %2
	%6 = mul i64 %0, 3
	%7 = add i64 %6, %2
	%8 = getelementptr float, float* %op0, i64 %7
	%9 = load float, float* %8, align 4
	%10 = fcmp ogt float %9, 0.0
	%11 = zext i1 %10 to i8
	%12 = getelementptr i8, i8* %res, i64 %5
	store i8 %11, i8* %12, align 1
	%13 = add i64 %2, 1
	br label %d1.header.4

d1.exit.6:
	%14 = add i64 %0, 1
	br label %d0.header.1
}

define i64 @main_graph_workspace_size() nounwind "target-cpu"="x86-64" {
entry:
	ret i64 128
}
