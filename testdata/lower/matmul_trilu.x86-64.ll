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
	%0 = alloca [48 x float], align 64
	%1 = alloca <4 x float>, align 64
	%2 = alloca <4 x float>, align 64
	%3 = alloca <4 x float>, align 64
	%4 = alloca <4 x float>, align 64
	%5 = alloca [48 x float], align 64
	%6 = alloca <4 x float>, align 64
	%7 = alloca <4 x float>, align 64
	%8 = alloca <4 x float>, align 64
	%9 = alloca <4 x float>, align 64
	%10 = alloca <4 x float>, align 64
	%11 = alloca <4 x float>, align 64
	%12 = alloca <4 x float>, align 64
	%13 = alloca <4 x float>, align 64
	%14 = alloca <4 x float>, align 64
	%15 = alloca <4 x float>, align 64
	%16 = alloca <4 x float>, align 64
	%17 = alloca <4 x float>, align 64
	br label %init.header.1

init.header.1:
	%18 = phi i64 [ 0, %entry ], [ %21, %init.body.2 ]
	%19 = icmp sle i64 %18, 63
	br i1 %19, label %init.body.2, label %init.exit.3

init.body.2:
	%20 = getelementptr float, float* %res, i64 %18
	store float 0.0, float* %20, align 4
	%21 = add i64 %18, 1
	br label %init.header.1

init.exit.3:
	%22 = getelementptr float, float* %res, i64 0
	%23 = bitcast float* %22 to <4 x float>*
	%24 = load <4 x float>, <4 x float>* %23, align 16
	store <4 x float> %24, <4 x float>* %17
	%25 = getelementptr float, float* %res, i64 4
	%26 = bitcast float* %25 to <4 x float>*
	%27 = load <4 x float>, <4 x float>* %26, align 16
	store <4 x float> %27, <4 x float>* %16
	%28 = getelementptr float, float* %res, i64 8
	%29 = bitcast float* %28 to <4 x float>*
	%30 = load <4 x float>, <4 x float>* %29, align 16
	store <4 x float> %30, <4 x float>* %15
	%31 = getelementptr float, float* %res, i64 12
	%32 = bitcast float* %31 to <4 x float>*
	%33 = load <4 x float>, <4 x float>* %32, align 16
	store <4 x float> %33, <4 x float>* %14
	%34 = getelementptr float, float* %res, i64 16
	%35 = bitcast float* %34 to <4 x float>*
	%36 = load <4 x float>, <4 x float>* %35, align 16
	store <4 x float> %36, <4 x float>* %13
	%37 = getelementptr float, float* %res, i64 20
	%38 = bitcast float* %37 to <4 x float>*
	%39 = load <4 x float>, <4 x float>* %38, align 16
	store <4 x float> %39, <4 x float>* %12
	%40 = getelementptr float, float* %res, i64 24
	%41 = bitcast float* %40 to <4 x float>*
	%42 = load <4 x float>, <4 x float>* %41, align 16
	store <4 x float> %42, <4 x float>* %11
	%43 = getelementptr float, float* %res, i64 28
	%44 = bitcast float* %43 to <4 x float>*
	%45 = load <4 x float>, <4 x float>* %44, align 16
	store <4 x float> %45, <4 x float>* %10
	%46 = getelementptr float, float* %res, i64 32
	%47 = bitcast float* %46 to <4 x float>*
	%48 = load <4 x float>, <4 x float>* %47, align 16
	store <4 x float> %48, <4 x float>* %9
	%49 = getelementptr float, float* %res, i64 36
	%50 = bitcast float* %49 to <4 x float>*
	%51 = load <4 x float>, <4 x float>* %50, align 16
	store <4 x float> %51, <4 x float>* %8
	%52 = getelementptr float, float* %res, i64 40
	%53 = bitcast float* %52 to <4 x float>*
	%54 = load <4 x float>, <4 x float>* %53, align 16
	store <4 x float> %54, <4 x float>* %7
	%55 = getelementptr float, float* %res, i64 44
	%56 = bitcast float* %55 to <4 x float>*
	%57 = load <4 x float>, <4 x float>* %56, align 16
	store <4 x float> %57, <4 x float>* %6
	br label %d0.header.4

d0.header.4:
	%58 = phi i64 [ 0, %init.exit.3 ], [ %196, %d0.body.5 ]
	%59 = icmp sle i64 %58, 7
	br i1 %59, label %d0.body.5, label %d0.exit.6

d0.body.5:
	%60 = load <4 x float>, <4 x float>* %17
	%61 = getelementptr float, float* %op0, i64 %58
	%62 = load float, float* %61, align 4
	%63 = insertelement <4 x float> undef, float %62, i32 0
	%64 = shufflevector <4 x float> %63, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%65 = mul i64 %58, 8
	%66 = getelementptr float, float* %op1, i64 %65
	%67 = bitcast float* %66 to <4 x float>*
	%68 = load <4 x float>, <4 x float>* %67, align 4
	%69 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %64, <4 x float> %68, <4 x float> %60)
	store <4 x float> %69, <4 x float>* %17
	%70 = load <4 x float>, <4 x float>* %16
	%71 = getelementptr float, float* %op0, i64 %58
	%72 = load float, float* %71, align 4
	%73 = insertelement <4 x float> undef, float %72, i32 0
	%74 = shufflevector <4 x float> %73, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%75 = mul i64 %58, 8
	%76 = add i64 %75, 4
	%77 = getelementptr float, float* %op1, i64 %76
	%78 = bitcast float* %77 to <4 x float>*
	%79 = load <4 x float>, <4 x float>* %78, align 4
	%80 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %74, <4 x float> %79, <4 x float> %70)
	store <4 x float> %80, <4 x float>* %16
	%81 = load <4 x float>, <4 x float>* %15
	%82 = add i64 8, %58
	%83 = getelementptr float, float* %op0, i64 %82
	%84 = load float, float* %83, align 4
	%85 = insertelement <4 x float> undef, float %84, i32 0
	%86 = shufflevector <4 x float> %85, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%87 = mul i64 %58, 8
	%88 = getelementptr float, float* %op1, i64 %87
	%89 = bitcast float* %88 to <4 x float>*
	%90 = load <4 x float>, <4 x float>* %89, align 4
	%91 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %86, <4 x float> %90, <4 x float> %81)
	store <4 x float> %91, <4 x float>* %15
	%92 = load <4 x float>, <4 x float>* %14
	%93 = add i64 8, %58
	%94 = getelementptr float, float* %op0, i64 %93
	%95 = load float, float* %94, align 4
	%96 = insertelement <4 x float> undef, float %95, i32 0
	%97 = shufflevector <4 x float> %96, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%98 = mul i64 %58, 8
	%99 = add i64 %98, 4
	%100 = getelementptr float, float* %op1, i64 %99
	%101 = bitcast float* %100 to <4 x float>*
	%102 = load <4 x float>, <4 x float>* %101, align 4
	%103 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %97, <4 x float> %102, <4 x float> %92)
	store <4 x float> %103, <4 x float>* %14
	%104 = load <4 x float>, <4 x float>* %13
	%105 = add i64 16, %58
	%106 = getelementptr float, float* %op0, i64 %105
	%107 = load float, float* %106, align 4
	%108 = insertelement <4 x float> undef, float %107, i32 0
	%109 = shufflevector <4 x float> %108, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%110 = mul i64 %58, 8
	%111 = getelementptr float, float* %op1, i64 %110
	%112 = bitcast float* %111 to <4 x float>*
	%113 = load <4 x float>, <4 x float>* %112, align 4
	%114 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %109, <4 x float> %113, <4 x float> %104)
	store <4 x float> %114, <4 x float>* %13
	%115 = load <4 x float>, <4 x float>* %12
	%116 = add i64 16, %58
	%117 = getelementptr float, float* %op0, i64 %116
	%118 = load float, float* %117, align 4
	%119 = insertelement <4 x float> undef, float %118, i32 0
	%120 = shufflevector <4 x float> %119, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%121 = mul i64 %58, 8
	%122 = add i64 %121, 4
	%123 = getelementptr float, float* %op1, i64 %122
	%124 = bitcast float* %123 to <4 x float>*
	%125 = load <4 x float>, <4 x float>* %124, align 4
	%126 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %120, <4 x float> %125, <4 x float> %115)
	store <4 x float> %126, <4 x float>* %12
	%127 = load <4 x float>, <4 x float>* %11
	%128 = add i64 24, %58
	%129 = getelementptr float, float* %op0, i64 %128
	%130 = load float, float* %129, align 4
	%131 = insertelement <4 x float> undef, float %130, i32 0
	%132 = shufflevector <4 x float> %131, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%133 = mul i64 %58, 8
	%134 = getelementptr float, float* %op1, i64 %133
	%135 = bitcast float* %134 to <4 x float>*
	%136 = load <4 x float>, <4 x float>* %135, align 4
	%137 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %132, <4 x float> %136, <4 x float> %127)
	store <4 x float> %137, <4 x float>* %11
	%138 = load <4 x float>, <4 x float>* %10
	%139 = add i64 24, %58
	%140 = getelementptr float, float* %op0, i64 %139
	%141 = load float, float* %140, align 4
	%142 = insertelement <4 x float> undef, float %141, i32 0
	%143 = shufflevector <4 x float> %142, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%144 = mul i64 %58, 8
	%145 = add i64 %144, 4
	%146 = getelementptr float, float* %op1, i64 %145
	%147 = bitcast float* %146 to <4 x float>*
	%148 = load <4 x float>, <4 x float>* %147, align 4
	%149 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %143, <4 x float> %148, <4 x float> %138)
	store <4 x float> %149, <4 x float>* %10
	%150 = load <4 x float>, <4 x float>* %9
	%151 = add i64 32, %58
	%152 = getelementptr float, float* %op0, i64 %151
	%153 = load float, float* %152, align 4
	%154 = insertelement <4 x float> undef, float %153, i32 0
	%155 = shufflevector <4 x float> %154, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%156 = mul i64 %58, 8
	%157 = getelementptr float, float* %op1, i64 %156
	%158 = bitcast float* %157 to <4 x float>*
	%159 = load <4 x float>, <4 x float>* %158, align 4
	%160 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %155, <4 x float> %159, <4 x float> %150)
	store <4 x float> %160, <4 x float>* %9
	%161 = load <4 x float>, <4 x float>* %8
	%162 = add i64 32, %58
	%163 = getelementptr float, float* %op0, i64 %162
	%164 = load float, float* %163, align 4
	%165 = insertelement <4 x float> undef, float %164, i32 0
	%166 = shufflevector <4 x float> %165, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%167 = mul i64 %58, 8
	%168 = add i64 %167, 4
	%169 = getelementptr float, float* %op1, i64 %168
	%170 = bitcast float* %169 to <4 x float>*
	%171 = load <4 x float>, <4 x float>* %170, align 4
	%172 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %166, <4 x float> %171, <4 x float> %161)
	store <4 x float> %172, <4 x float>* %8
	%173 = load <4 x float>, <4 x float>* %7
	%174 = add i64 40, %58
	%175 = getelementptr float, float* %op0, i64 %174
	%176 = load float, float* %175, align 4
	%177 = insertelement <4 x float> undef, float %176, i32 0
	%178 = shufflevector <4 x float> %177, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%179 = mul i64 %58, 8
	%180 = getelementptr float, float* %op1, i64 %179
	%181 = bitcast float* %180 to <4 x float>*
	%182 = load <4 x float>, <4 x float>* %181, align 4
	%183 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %178, <4 x float> %182, <4 x float> %173)
	store <4 x float> %183, <4 x float>* %7
	%184 = load <4 x float>, <4 x float>* %6
	%185 = add i64 40, %58
	%186 = getelementptr float, float* %op0, i64 %185
	%187 = load float, float* %186, align 4
	%188 = insertelement <4 x float> undef, float %187, i32 0
	%189 = shufflevector <4 x float> %188, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%190 = mul i64 %58, 8
	%191 = add i64 %190, 4
	%192 = getelementptr float, float* %op1, i64 %191
	%193 = bitcast float* %192 to <4 x float>*
	%194 = load <4 x float>, <4 x float>* %193, align 4
	%195 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %189, <4 x float> %194, <4 x float> %184)
	store <4 x float> %195, <4 x float>* %6
	%196 = add i64 %58, 1
	br label %d0.header.4

d0.exit.6:
	%197 = getelementptr [48 x float], [48 x float]* %5, i64 0, i64 0
	%198 = load <4 x float>, <4 x float>* %17
	%199 = bitcast float* %197 to <4 x float>*
	store <4 x float> %198, <4 x float>* %199
	%200 = getelementptr [48 x float], [48 x float]* %5, i64 0, i64 4
	%201 = load <4 x float>, <4 x float>* %16
	%202 = bitcast float* %200 to <4 x float>*
	store <4 x float> %201, <4 x float>* %202
	%203 = getelementptr [48 x float], [48 x float]* %5, i64 0, i64 8
	%204 = load <4 x float>, <4 x float>* %15
	%205 = bitcast float* %203 to <4 x float>*
	store <4 x float> %204, <4 x float>* %205
	%206 = getelementptr [48 x float], [48 x float]* %5, i64 0, i64 12
	%207 = load <4 x float>, <4 x float>* %14
	%208 = bitcast float* %206 to <4 x float>*
	store <4 x float> %207, <4 x float>* %208
	%209 = getelementptr [48 x float], [48 x float]* %5, i64 0, i64 16
	%210 = load <4 x float>, <4 x float>* %13
	%211 = bitcast float* %209 to <4 x float>*
	store <4 x float> %210, <4 x float>* %211
	%212 = getelementptr [48 x float], [48 x float]* %5, i64 0, i64 20
	%213 = load <4 x float>, <4 x float>* %12
	%214 = bitcast float* %212 to <4 x float>*
	store <4 x float> %213, <4 x float>* %214
	%215 = getelementptr [48 x float], [48 x float]* %5, i64 0, i64 24
	%216 = load <4 x float>, <4 x float>* %11
	%217 = bitcast float* %215 to <4 x float>*
	store <4 x float> %216, <4 x float>* %217
	%218 = getelementptr [48 x float], [48 x float]* %5, i64 0, i64 28
	%219 = load <4 x float>, <4 x float>* %10
	%220 = bitcast float* %218 to <4 x float>*
	store <4 x float> %219, <4 x float>* %220
	%221 = getelementptr [48 x float], [48 x float]* %5, i64 0, i64 32
	%222 = load <4 x float>, <4 x float>* %9
	%223 = bitcast float* %221 to <4 x float>*
	store <4 x float> %222, <4 x float>* %223
	%224 = getelementptr [48 x float], [48 x float]* %5, i64 0, i64 36
	%225 = load <4 x float>, <4 x float>* %8
	%226 = bitcast float* %224 to <4 x float>*
	store <4 x float> %225, <4 x float>* %226
	%227 = getelementptr [48 x float], [48 x float]* %5, i64 0, i64 40
	%228 = load <4 x float>, <4 x float>* %7
	%229 = bitcast float* %227 to <4 x float>*
	store <4 x float> %228, <4 x float>* %229
	%230 = getelementptr [48 x float], [48 x float]* %5, i64 0, i64 44
	%231 = load <4 x float>, <4 x float>* %6
	%232 = bitcast float* %230 to <4 x float>*
	store <4 x float> %231, <4 x float>* %232
	br label %d0.header.7

d0.header.7:
	%233 = phi i64 [ 0, %d0.exit.6 ], [ %259, %d1.exit.12 ]
	%234 = icmp sle i64 %233, 5
	br i1 %234, label %d0.body.8, label %d0.exit.9

d0.body.8:
	%235 = icmp sgt i64 %233, 0
	%236 = select i1 %235, i64 %233, i64 0
	br label %d1.header.10

d0.exit.9:
	%237 = getelementptr float, float* %res, i64 48
	%238 = bitcast float* %237 to <4 x float>*
	%239 = load <4 x float>, <4 x float>* %238, align 16
	store <4 x float> %239, <4 x float>* %4
	%240 = getelementptr float, float* %res, i64 52
	%241 = bitcast float* %240 to <4 x float>*
	%242 = load <4 x float>, <4 x float>* %241, align 16
	store <4 x float> %242, <4 x float>* %3
	%243 = getelementptr float, float* %res, i64 56
	%244 = bitcast float* %243 to <4 x float>*
	%245 = load <4 x float>, <4 x float>* %244, align 16
	store <4 x float> %245, <4 x float>* %2
	%246 = getelementptr float, float* %res, i64 60
	%247 = bitcast float* %246 to <4 x float>*
	%248 = load <4 x float>, <4 x float>* %247, align 16
	store <4 x float> %248, <4 x float>* %1
	br label %d0.header.13

d1.header.10:
	%249 = phi i64 [ %236, %d0.body.8 ], [ %258, %d1.body.11 ]
	%250 = icmp sle i64 %249, 7
	br i1 %250, label %d1.body.11, label %d1.exit.12

d1.body.11:
	%251 = mul i64 %233, 8
	%252 = add i64 %251, %249
	%253 = getelementptr [48 x float], [48 x float]* %5, i64 0, i64 %252
	%254 = load float, float* %253
	%255 = mul i64 %233, 8
	%256 = add i64 %255, %249
	%257 = getelementptr float, float* %res, i64 %256
	store float %254, float* %257, align 4
	%258 = add i64 %249, 1
	br label %d1.header.10

d1.exit.12:
	%259 = add i64 %233, 1
	br label %d0.header.7

d0.header.13:
	%260 = phi i64 [ 0, %d0.exit.9 ], [ %308, %d0.body.14 ]
	%261 = icmp sle i64 %260, 7
	br i1 %261, label %d0.body.14, label %d0.exit.15

d0.body.14:
	%262 = load <4 x float>, <4 x float>* %4
	%263 = add i64 48, %260
	%264 = getelementptr float, float* %op0, i64 %263
	%265 = load float, float* %264, align 4
	%266 = insertelement <4 x float> undef, float %265, i32 0
	%267 = shufflevector <4 x float> %266, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%268 = mul i64 %260, 8
	%269 = getelementptr float, float* %op1, i64 %268
	%270 = bitcast float* %269 to <4 x float>*
	%271 = load <4 x float>, <4 x float>* %270, align 4
	%272 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %267, <4 x float> %271, <4 x float> %262)
	store <4 x float> %272, <4 x float>* %4
	%273 = load <4 x float>, <4 x float>* %3
	%274 = add i64 48, %260
	%275 = getelementptr float, float* %op0, i64 %274
	%276 = load float, float* %275, align 4
	%277 = insertelement <4 x float> undef, float %276, i32 0
	%278 = shufflevector <4 x float> %277, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%279 = mul i64 %260, 8
	%280 = add i64 %279, 4
	%281 = getelementptr float, float* %op1, i64 %280
	%282 = bitcast float* %281 to <4 x float>*
	%283 = load <4 x float>, <4 x float>* %282, align 4
	%284 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %278, <4 x float> %283, <4 x float> %273)
	store <4 x float> %284, <4 x float>* %3
	%285 = load <4 x float>, <4 x float>* %2
	%286 = add i64 56, %260
	%287 = getelementptr float, float* %op0, i64 %286
	%288 = load float, float* %287, align 4
	%289 = insertelement <4 x float> undef, float %288, i32 0
	%290 = shufflevector <4 x float> %289, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%291 = mul i64 %260, 8
	%292 = getelementptr float, float* %op1, i64 %291
	%293 = bitcast float* %292 to <4 x float>*
	%294 = load <4 x float>, <4 x float>* %293, align 4
	%295 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %290, <4 x float> %294, <4 x float> %285)
	store <4 x float> %295, <4 x float>* %2
	%296 = load <4 x float>, <4 x float>* %1
	%297 = add i64 56, %260
	%298 = getelementptr float, float* %op0, i64 %297
	%299 = load float, float* %298, align 4
	%300 = insertelement <4 x float> undef, float %299, i32 0
	%301 = shufflevector <4 x float> %300, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%302 = mul i64 %260, 8
	%303 = add i64 %302, 4
	%304 = getelementptr float, float* %op1, i64 %303
	%305 = bitcast float* %304 to <4 x float>*
	%306 = load <4 x float>, <4 x float>* %305, align 4
	%307 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %301, <4 x float> %306, <4 x float> %296)
	store <4 x float> %307, <4 x float>* %1
	%308 = add i64 %260, 1
	br label %d0.header.13

d0.exit.15:
	%309 = getelementptr [48 x float], [48 x float]* %0, i64 0, i64 0
	%310 = load <4 x float>, <4 x float>* %4
	%311 = bitcast float* %309 to <4 x float>*
	store <4 x float> %310, <4 x float>* %311
	%312 = getelementptr [48 x float], [48 x float]* %0, i64 0, i64 4
	%313 = load <4 x float>, <4 x float>* %3
	%314 = bitcast float* %312 to <4 x float>*
	store <4 x float> %313, <4 x float>* %314
	%315 = getelementptr [48 x float], [48 x float]* %0, i64 0, i64 8
	%316 = load <4 x float>, <4 x float>* %2
	%317 = bitcast float* %315 to <4 x float>*
	store <4 x float> %316, <4 x float>* %317
	%318 = getelementptr [48 x float], [48 x float]* %0, i64 0, i64 12
	%319 = load <4 x float>, <4 x float>* %1
	%320 = bitcast float* %318 to <4 x float>*
	store <4 x float> %319, <4 x float>* %320
	br label %d0.header.16

d0.header.16:
	%321 = phi i64 [ 0, %d0.exit.15 ], [ %337, %d1.exit.21 ]
	%322 = icmp sle i64 %321, 1
	br i1 %322, label %d0.body.17, label %d0.exit.18

d0.body.17:
	%323 = add i64 %321, 6
	%324 = icmp sgt i64 %323, 0
	%325 = select i1 %324, i64 %323, i64 0
	br label %d1.header.19

d0.exit.18:
	ret i32 0

d1.header.19:
	%326 = phi i64 [ %325, %d0.body.17 ], [ %336, %d1.body.20 ]
	%327 = icmp sle i64 %326, 7
	br i1 %327, label %d1.body.20, label %d1.exit.21

d1.body.20:
	%328 = mul i64 %321, 8
	%329 = add i64 %328, %326
	%330 = getelementptr [48 x float], [48 x float]* %0, i64 0, i64 %329
	%331 = load float, float* %330
	%332 = add i64 6, %321
	%333 = mul i64 %332, 8
	%334 = add i64 %333, %326
	%335 = getelementptr float, float* %res, i64 %334
	store float %331, float* %335, align 4
	%336 = add i64 %326, 1
	br label %d1.header.19

d1.exit.21:
	%337 = add i64 %321, 1
	br label %d0.header.16
}

declare <4 x float> @llvm.fmuladd.v4f32(<4 x float> %0, <4 x float> %1, <4 x float> %2)

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
