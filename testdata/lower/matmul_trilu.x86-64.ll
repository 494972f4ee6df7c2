target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i32 @main_graph(float* noalias nocapture readonly %in0, float* noalias nocapture readonly %in1, float* noalias nocapture %out0, i8* noalias nocapture %workspace) nounwind "target-cpu"="x86-64" {
entry:
	%0 = getelementptr i8, i8* %workspace, i64 0
	%1 = bitcast i8* %0 to float*
	%2 = call i32 @main_graph.k0.matmul(float* %1, float* %in0, float* %in1)
	%3 = icmp eq i32 %2, 0
	br i1 %3, label %op.ok.1, label %op.fail.2

op.ok.1:
	%4 = call i32 @main_graph.k1.trilu(float* %out0, float* %1)
	%5 = icmp eq i32 %4, 0
	br i1 %5, label %op.ok.3, label %op.fail.4

op.fail.2:
	ret i32 %2

op.ok.3:
	ret i32 0

op.fail.4:
	ret i32 %4
}

define internal i32 @main_graph.k0.matmul(float* noalias nocapture %res, float* noalias nocapture readonly %op0, float* noalias nocapture readonly %op1) noinline nounwind "target-cpu"="x86-64" {
entry:
	br label %init.header.1

init.header.1:
	%0 = phi i64 [ 0, %entry ], [ %3, %init.body.2 ]
	%1 = icmp sle i64 %0, 63
	br i1 %1, label %init.body.2, label %init.exit.3

init.body.2:
	%2 = getelementptr float, float* %res, i64 %0
	store float 0.0, float* %2, align 4
	%3 = add i64 %0, 1
	br label %init.header.1

init.exit.3:
	br label %d0.header.4

d0.header.4:
	%4 = phi i64 [ 0, %init.exit.3 ], [ %8, %d1.exit.9 ]
	%5 = icmp sle i64 %4, 7
	br i1 %5, label %d0.body.5, label %d0.exit.6

d0.body.5:
	br label %d1.header.7

d0.exit.6:
	ret i32 0

d1.header.7:
	%6 = phi i64 [ 0, %d0.body.5 ], [ %27, %d2.exit.12 ]
	%7 = icmp sle i64 %6, 7
	br i1 %7, label %d1.body.8, label %d1.exit.9

d1.body.8:
	br label %d2.header.10

d1.exit.9:
	%8 = add i64 %4, 1
	br label %d0.header.4

d2.header.10:
	%9 = phi i64 [ %4, %d1.body.8 ], [ %26, %d2.body.11 ]
	%10 = icmp sle i64 %9, 7
	br i1 %10, label %d2.body.11, label %d2.exit.12

d2.body.11:
	%11 = mul i64 %4, 8
	%12 = add i64 %11, %9
	%13 = mul i64 %4, 8
	%14 = add i64 %13, %6
	%15 = getelementptr float, float* %op0, i64 %14
	%16 = load float, float* %15, align 4
	%17 = mul i64 %6, 8
	%18 = add i64 %17, %9
	%19 = getelementptr float, float* %op1, i64 %18
	%20 = load float, float* %19, align 4
	%21 = fmul float %16, %20
	%22 = getelementptr float, float* %res, i64 %12
	%23 = load float, float* %22, align 4
	%24 = fadd float %23, %21
	%25 = getelementptr float, float* %res, i64 %12
	store float %24, float* %25, align 4
	%26 = add i64 %9, 1
	br label %d2.header.10

d2.exit.12:
	%27 = add i64 %6, 1
	br label %d1.header.7
}

define internal i32 @main_graph.k1.trilu(float* noalias nocapture %res, float* noalias nocapture readonly %op0) noinline nounwind "target-cpu"="x86-64" {
entry:
	br label %d0.header.1

d0.header.1:
	%0 = phi i64 [ 0, %entry ], [ %12, %d1.exit.6 ]
	%1 = icmp sle i64 %0, 7
	br i1 %1, label %d0.body.2, label %d0.exit.3

d0.body.2:
	br label %d1.header.4

d0.exit.3:
	ret i32 0

d1.header.4:
	%2 = phi i64 [ 0, %d0.body.2 ], [ %16, %read.end.7 ]
	%3 = icmp sle i64 %2, 7
	br i1 %3, label %d1.body.5, label %d1.exit.6

d1.body.5:
	%4 = mul i64 %0, 8
	%5 = add i64 %4, %2
	%6 = mul i64 %0, -1
	%7 = add i64 %6, %2
	%8 = icmp sge i64 %7, 0
	%9 = mul i64 %0, -1
	%10 = add i64 %9, %2
	%11 = icmp sge i64 %10, 0
	br i1 %11, label %read.piece.8, label %read.next.9

d1.exit.6:
	%12 = add i64 %0, 1
	br label %d0.header.1

read.end.7:
	%13 = phi float [ %20, %read.piece.8 ], [ 0.0, %read.next.9 ]
	%14 = select i1 %8, float %13, float 0.0
	%15 = getelementptr float, float* %res, i64 %5
	store float %14, float* %15, align 4
	%16 = add i64 %2, 1
	br label %d1.header.4

read.piece.8:
	%17 = mul i64 %0, 8
	%18 = add i64 %17, %2
	%19 = getelementptr float, float* %op0, i64 %18
	%20 = load float, float* %19, align 4
	br label %read.end.7

read.next.9:
	br label %read.end.7
}

define i64 @main_graph_workspace_size() nounwind "target-cpu"="x86-64" {
entry:
	ret i64 256
}
