target datalayout = "e-m:e-p:32:32:32-a:0-n16:32-i64:64:64-i32:32:32-i16:16:16-i1:8:8-f32:32:32-f64:64:64-v32:32:32-v64:64:64-v512:512:512-v1024:1024:1024-v2048:2048:2048"
target triple = "hexagon-unknown-linux-musl"

define i32 @main_graph(float* noalias nocapture readonly %in0, float* noalias nocapture readonly %in1, float* noalias nocapture %out0, i8* noalias nocapture %workspace) nounwind "target-cpu"="hexagonv68" "target-features"="+hvxv68,+hvx-length128b" "no-builtins" {
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

define internal i32 @main_graph.k0.matmul(float* noalias nocapture %res, float* noalias nocapture readonly %op0, float* noalias nocapture readonly %op1) noinline nounwind "target-cpu"="hexagonv68" "target-features"="+hvxv68,+hvx-length128b" "no-builtins" {
entry:
	%0 = alloca float, align 64
	%1 = alloca <32 x float>, align 64
	br label %init.header.1

init.header.1:
	%2 = phi i64 [ 0, %entry ], [ %5, %init.body.2 ]
	%3 = icmp sle i64 %2, 63
	br i1 %3, label %init.body.2, label %init.exit.3

init.body.2:
	%4 = getelementptr float, float* %res, i64 %2
	store float 0.0, float* %4, align 4
	%5 = add i64 %2, 1
	br label %init.header.1

init.exit.3:
	br label %d0.header.4

d0.header.4:
	%6 = phi i64 [ 0, %init.exit.3 ], [ %45, %win.rem.exit.15 ]
	%7 = icmp sle i64 %6, 7
	br i1 %7, label %d0.body.5, label %d0.exit.6

d0.body.5:
	br label %win.header.7

d0.exit.6:
	ret i32 0

win.header.7:
	%8 = phi i64 [ %6, %d0.body.5 ], [ %38, %d2.exit.12 ]
	%9 = add i64 %8, 31
	%10 = icmp sle i64 %9, 7
	br i1 %10, label %win.body.8, label %win.exit.9

win.body.8:
	%11 = mul i64 %6, 8
	%12 = add i64 %11, %8
	%13 = getelementptr float, float* %res, i64 %12
	%14 = bitcast float* %13 to <32 x float>*
	%15 = load <32 x float>, <32 x float>* %14, align 4
	store <32 x float> %15, <32 x float>* %1
	br label %d2.header.10

win.exit.9:
	br label %win.rem.header.13

d2.header.10:
	%16 = phi i64 [ 0, %win.body.8 ], [ %32, %d2.body.11 ]
	%17 = icmp sle i64 %16, 7
	br i1 %17, label %d2.body.11, label %d2.exit.12

d2.body.11:
	%18 = load <32 x float>, <32 x float>* %1
	%19 = mul i64 %6, 8
	%20 = add i64 %19, %16
	%21 = getelementptr float, float* %op0, i64 %20
	%22 = load float, float* %21, align 4
	%23 = insertelement <32 x float> undef, float %22, i32 0
	%24 = shufflevector <32 x float> %23, <32 x float> undef, <32 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
	%25 = mul i64 %16, 8
	%26 = add i64 %25, %8
	%27 = getelementptr float, float* %op1, i64 %26
	%28 = bitcast float* %27 to <32 x float>*
	%29 = load <32 x float>, <32 x float>* %28, align 4
	%30 = fmul <32 x float> %24, %29
	%31 = fadd <32 x float> %18, %30
	store <32 x float> %31, <32 x float>* %1
	%32 = add i64 %16, 1
	br label %d2.header.10

d2.exit.12:
	%33 = load <32 x float>, <32 x float>* %1
	%34 = mul i64 %6, 8
	%35 = add i64 %34, %8
	%36 = getelementptr float, float* %res, i64 %35
	%37 = bitcast float* %36 to <32 x float>*
	store <32 x float> %33, <32 x float>* %37, align 4
	%38 = add i64 %8, 32
	br label %win.header.7

win.rem.header.13:
	%39 = phi i64 [ %8, %win.exit.9 ], [ %64, %d2.exit.18 ]
	%40 = icmp sle i64 %39, 7
	br i1 %40, label %win.rem.body.14, label %win.rem.exit.15

win.rem.body.14:
	%41 = mul i64 %6, 8
	%42 = add i64 %41, %39
	%43 = getelementptr float, float* %res, i64 %42
	%44 = load float, float* %43, align 4
	store float %44, float* %0
	br label %d2.header.16

win.rem.exit.15:
	%45 = add i64 %6, 1
	br label %d0.header.4

d2.header.16:
	%46 = phi i64 [ 0, %win.rem.body.14 ], [ %59, %d2.body.17 ]
	%47 = icmp sle i64 %46, 7
	br i1 %47, label %d2.body.17, label %d2.exit.18

d2.body.17:
	%48 = load float, float* %0
	%49 = mul i64 %6, 8
	%50 = add i64 %49, %46
	%51 = getelementptr float, float* %op0, i64 %50
	%52 = load float, float* %51, align 4
	%53 = mul i64 %46, 8
	%54 = add i64 %53, %39
	%55 = getelementptr float, float* %op1, i64 %54
	%56 = load float, float* %55, align 4
	%57 = fmul float %52, %56
	%58 = fadd float %48, %57
	store float %58, float* %0
	%59 = add i64 %46, 1
	br label %d2.header.16

d2.exit.18:
	%60 = load float, float* %0
	%61 = mul i64 %6, 8
	%62 = add i64 %61, %39
	%63 = getelementptr float, float* %res, i64 %62
	store float %60, float* %63, align 4
	%64 = add i64 %39, 1
	br label %win.rem.header.13
}

define internal i32 @main_graph.k1.trilu(float* noalias nocapture %res, float* noalias nocapture readonly %op0) noinline nounwind "target-cpu"="hexagonv68" "target-features"="+hvxv68,+hvx-length128b" "no-builtins" {
entry:
	br label %d0.header.1

d0.header.1:
	%0 = phi i64 [ 0, %entry ], [ %25, %vec.rem.exit.9 ]
	%1 = icmp sle i64 %0, 7
	br i1 %1, label %d0.body.2, label %d0.exit.3

d0.body.2:
	br label %vec.header.4

d0.exit.3:
	br label %d0.header.10

vec.header.4:
	%2 = phi i64 [ %0, %d0.body.2 ], [ %14, %vec.body.5 ]
	%3 = add i64 %2, 31
	%4 = icmp sle i64 %3, 7
	br i1 %4, label %vec.body.5, label %vec.exit.6

vec.body.5:
	%5 = mul i64 %0, 8
	%6 = add i64 %5, %2
	%7 = mul i64 %0, 8
	%8 = add i64 %7, %2
	%9 = getelementptr float, float* %op0, i64 %8
	%10 = bitcast float* %9 to <32 x float>*
	%11 = load <32 x float>, <32 x float>* %10, align 4
	%12 = getelementptr float, float* %res, i64 %6
	%13 = bitcast float* %12 to <32 x float>*
	store <32 x float> %11, <32 x float>* %13, align 4
	%14 = add i64 %2, 32
	br label %vec.header.4

vec.exit.6:
	br label %vec.rem.header.7

vec.rem.header.7:
	%15 = phi i64 [ %2, %vec.exit.6 ], [ %24, %vec.rem.body.8 ]
	%16 = icmp sle i64 %15, 7
	br i1 %16, label %vec.rem.body.8, label %vec.rem.exit.9

vec.rem.body.8:
	%17 = mul i64 %0, 8
	%18 = add i64 %17, %15
	%19 = mul i64 %0, 8
	%20 = add i64 %19, %15
	%21 = getelementptr float, float* %op0, i64 %20
	%22 = load float, float* %21, align 4
	%23 = getelementptr float, float* %res, i64 %18
	store float %22, float* %23, align 4
	%24 = add i64 %15, 1
	br label %vec.rem.header.7

vec.rem.exit.9:
	%25 = add i64 %0, 1
	br label %d0.header.1

d0.header.10:
	%26 = phi i64 [ 1, %d0.exit.3 ], [ %43, %vec.rem.exit.18 ]
	%27 = icmp sle i64 %26, 7
	br i1 %27, label %d0.body.11, label %d0.exit.12

d0.body.11:
	%28 = add i64 -1, %26
	br label %vec.header.13

d0.exit.12:
	ret i32 0

vec.header.13:
	%29 = phi i64 [ 0, %d0.body.11 ], [ %36, %vec.body.14 ]
	%30 = add i64 %29, 31
	%31 = icmp sle i64 %30, %28
	br i1 %31, label %vec.body.14, label %vec.exit.15

vec.body.14:
	%32 = mul i64 %26, 8
	%33 = add i64 %32, %29
	%34 = getelementptr float, float* %res, i64 %33
	%35 = bitcast float* %34 to <32 x float>*
	store <32 x float> <float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0>, <32 x float>* %35, align 4
	%36 = add i64 %29, 32
	br label %vec.header.13

vec.exit.15:
	br label %vec.rem.header.16

vec.rem.header.16:
	%37 = phi i64 [ %29, %vec.exit.15 ], [ %42, %vec.rem.body.17 ]
	%38 = icmp sle i64 %37, %28
	br i1 %38, label %vec.rem.body.17, label %vec.rem.exit.18

vec.rem.body.17:
	%39 = mul i64 %26, 8
	%40 = add i64 %39, %37
	%41 = getelementptr float, float* %res, i64 %40
	store float 0.0, float* %41, align 4
	%42 = add i64 %37, 1
	br label %vec.rem.header.16

vec.rem.exit.18:
	%43 = add i64 %26, 1
	br label %d0.header.10
}

define i64 @main_graph_workspace_size() nounwind "target-cpu"="hexagonv68" "target-features"="+hvxv68,+hvx-length128b" "no-builtins" {
entry:
	ret i64 256
}
