<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="zh_CN">
<context>
    <name />
    <message>
        <location filename="../../gemmviz/ui/i18n.py" line="216" />
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/i18n.py" line="222" />
        <source>As the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="34" />
        <source>gemmviz {version}: see why tiled matrix multiplication is fast.</source>
        <translation>gemmviz {version}：看看分块矩阵乘法为什么快。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="35" />
        <source>Licence: {licence} (see the LICENSE file). Qt {qt}, pyqtgraph {pg}.</source>
        <translation>许可证：{licence}（见 LICENSE 文件）。Qt {qt}，pyqtgraph {pg}。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="39" />
        <source>Where the numbers come from:</source>
        <translation>数据来源：</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="40" />
        <source>• live results: measured on this computer when you press Run, verified against a float64 reference</source>
        <translation>• 实时结果：按下“运行”时在这台电脑上测得，并与 float64 参考结果核对</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="45" />
        <source>• {file}: measured by gemmviz on {where}</source>
        <translation>• {file}：由 gemmviz 在 {where} 上测得</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="48" />
        <source>• {file}: the table {seed} published ({where}), not measured by gemmviz</source>
        <translation>• {file}：{seed}发表的表格（{where}），不是 gemmviz 测得的</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="49" />
        <source>a seed</source>
        <translation>一篇原文</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="53" />
        <source>• {file}: roofline ceilings measured on {where}</source>
        <translation>• {file}：在 {where} 上测得的 Roofline 屋顶</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="54" />
        <source>The seeds: the two blog posts whose kernels and arithmetic gemmviz implements and checks:</source>
        <translation>原文：gemmviz 实现并核对其核函数与计算的两篇博客：</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="62" />
        <source>About gemmviz</source>
        <translation>关于 gemmviz</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="88" />
        <source>&amp;About gemmviz</source>
        <translation>关于 gemmviz(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="89" />
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/axes.py" line="412" />
        <source>+{n} more</source>
        <translation>另外 {n} 项</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/base.py" line="460" />
        <source>median {median} ms (min {min}, max {max}, n={n})</source>
        <translation>中位数 {median} 毫秒（最小 {min}，最大 {max}，n={n}）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/base.py" line="463" />
        <source>{gflops} GFLOP/s, rel. error {error}</source>
        <translation>{gflops} GFLOP/s，相对误差 {error}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/base.py" line="487" />
        <source> (recorded)</source>
        <translation>（录制）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/base.py" line="488" />
        <source> (published)</source>
        <translation>（已发表）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="49" />
        <source>CPU loop</source>
        <translation>CPU 循环</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="49" />
        <source>GPU naive, block 16×16 (the seed's)</source>
        <translation>原文的 GPU 朴素版（线程块 16×16）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="50" />
        <location filename="../../gemmviz/ui/charts/roofline.py" line="103" />
        <source>cuBLAS FP32</source>
        <translation>cuBLAS FP32</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="50" />
        <location filename="../../gemmviz/ui/charts/roofline.py" line="104" />
        <source>cuBLAS TF32</source>
        <translation>cuBLAS TF32</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="54" />
        <source>matrix size (∛(M·N·K))</source>
        <translation>矩阵规模（∛(M·N·K)）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="153" />
        <location filename="../../gemmviz/ui/charts/compare.py" line="380" />
        <location filename="../../gemmviz/ui/charts/plots.py" line="155" />
        <location filename="../../gemmviz/ui/charts/table.py" line="235" />
        <source>live (this machine)</source>
        <translation>实时（本机）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="162" />
        <source>hollow: {sizes}</source>
        <translation>空心：{sizes}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="162" />
        <source> and </source>
        <translation> 和 </translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="164" />
        <source>hollow: {size} and {n} other sizes</source>
        <translation>空心：{size} 及另外 {n} 个规模</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="223" />
        <source>Time per multiplication</source>
        <translation>每次矩阵乘法的时间</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="224" />
        <source>median time (ms)</source>
        <translation>中位时间（毫秒）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="252" />
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="253" />
        <source>GFLOP/s (2·M·N·K / median time)</source>
        <translation>GFLOP/s（2·M·N·K / 中位时间）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="264" />
        <source>Speedup</source>
        <translation>加速比</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="265" />
        <source>times as fast (log scale)</source>
        <translation>相对速度（对数坐标）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="425" />
        <source>Speedup: no results yet</source>
        <translation>加速比：还没有结果</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="435" />
        <source>{name} is hidden</source>
        <translation>{name} 已隐藏</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="436" />
        <source>show {series} again (a click on it in a
chart's legend) or choose another baseline</source>
        <translation>重新显示 {series}（在图例中
点击它），或换一个基准</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="442" />
        <source>sizes with one: {sizes}</source>
        <translation>有基准结果的规模：{sizes}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="442" />
        <source>no size has one</source>
        <translation>没有任何规模有基准结果</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="443" />
        <source>No {name} result at {size}</source>
        <translation>规模 {size} 没有 {name} 的结果</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="447" />
        <source>Speedup vs {name} at {size}</source>
        <translation>规模 {size} 下相对 {name} 的加速比</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/plots.py" line="509" />
        <source>⋯ {n} more, {low} to {high}</source>
        <translation>⋯ 另有 {n} 个，{low} 至 {high}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/kinds.py" line="190" />
        <location filename="../../gemmviz/ui/charts/kinds/series.py" line="19" />
        <source>time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/kinds.py" line="199" />
        <location filename="../../gemmviz/ui/charts/kinds/series.py" line="37" />
        <source>GFLOP/s</source>
        <translation>GFLOP/s</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/kinds.py" line="208" />
        <location filename="../../gemmviz/ui/charts/kinds/speedup.py" line="12" />
        <source>speedup</source>
        <translation>加速比</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/kinds.py" line="238" />
        <source>roofline</source>
        <translation>Roofline 模型</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/kinds.py" line="257" />
        <source>dashboard</source>
        <translation>总览（2×2）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/kinds.py" line="285" />
        <source>traffic</source>
        <translation>内存流量</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/kinds.py" line="295" />
        <source>sm-trace</source>
        <translation>SM 轨迹</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/kinds.py" line="303" />
        <source>last wave</source>
        <translation>最后一波</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/kinds.py" line="304" />
        <source>gpu-cpasync-any at 1024³ before and after the small-size fix, its idle SM-time hatched (recorded traces where the session has them, else the model's)</source>
        <translation>gpu-cpasync-any 在 1024³ 时小规模修复前后的对比，空闲的 SM 时间以斜线标出（会话中有记录的轨迹时用记录，否则用模型的轨迹）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/kinds.py" line="191" />
        <source>median time vs size (log-log)</source>
        <translation>中位时间随规模的变化（双对数坐标）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/kinds.py" line="200" />
        <source>GFLOP/s vs size (log-log)</source>
        <translation>GFLOP/s 随规模的变化（双对数坐标）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/kinds.py" line="209" />
        <source>speedup bars vs a baseline at one size</source>
        <translation>某一规模下相对基准的加速比柱状图</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/kinds.py" line="239" />
        <source>GFLOP/s vs arithmetic intensity under the GPU's ceilings</source>
        <translation>GPU 屋顶之下 GFLOP/s 与算术强度的关系</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/kinds.py" line="258" />
        <source>time, GFLOP/s, speedup and roofline on one 2x2 page</source>
        <translation>时间、GFLOP/s、加速比和 Roofline 模型，2×2 排在一页</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/kinds.py" line="286" />
        <source>the model's traffic beside the hardware counters, per memory level (a profiled result)</source>
        <translation>按存储层级对照模型流量与硬件计数器（需要分析过的结果）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/kinds.py" line="296" />
        <source>thread blocks on the SMs over time, in waves (a traced result)</source>
        <translation>线程块随时间在各 SM 上一波一波地运行（需要带轨迹的结果）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/export/animation.py" line="292" />
        <location filename="../../gemmviz/ui/export/dialog.py" line="38" />
        <source>Cannot export</source>
        <translation>无法导出</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/export/dialog.py" line="40" />
        <source>Exported the {kind} chart to {path}</source>
        <translation>已把 {kind} 图表导出到 {path}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/export/animation.py" line="292" />
        <source>There is no animation to export: choose a valid size and tile first.</source>
        <translation>没有可导出的动画：请先选择有效的规模和分块大小。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/export/animation.py" line="284" />
        <source>Cannot export the animation</source>
        <translation>无法导出动画</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/export/animation.py" line="194" />
        <source>Exporting the animation to {0}…</source>
        <translation>正在将动画导出到 {0}…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/export/animation.py" line="220" />
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/export/animation.py" line="241" />
        <source>Exporting the animation to {0}: frame {1} of {2}</source>
        <translation>正在将动画导出到 {0}：第 {1} 帧，共 {2} 帧</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/export/animation.py" line="287" />
        <source>An export is already running: wait for it, or cancel it.</source>
        <translation>已有导出正在进行：请等待其完成，或将其取消。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/export/animation.py" line="321" />
        <source>Exported frame {0} to {1}</source>
        <translation>已将第 {0} 帧导出到 {1}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/export/animation.py" line="323" />
        <source>Exported {n} frames to {path}</source>
        <translation>已把 {n} 帧导出到 {path}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/export/animation.py" line="329" />
        <source>Export cancelled: {0} was not written</source>
        <translation>导出已取消：未写入 {0}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/export/animation.py" line="200" />
        <location filename="../../gemmviz/ui/export/dialog.py" line="55" />
        <source>Export animation</source>
        <translation>导出动画</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/export/dialog.py" line="79" />
        <location filename="../../gemmviz/ui/export/dialog.py" line="118" />
        <source>Export chart</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/export/dialog.py" line="93" />
        <source>chart</source>
        <translation>图表</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/export/dialog.py" line="94" />
        <source>size (pixels)</source>
        <translation>尺寸（像素）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/export/dialog.py" line="98" />
        <source>Fonts and lines scale with the size: 4K is the 1080p layout, twice as sharp.
The current theme (projector, dark) is used; a footer says where the numbers come from.</source>
        <translation>字号和线宽随尺寸缩放：4K 就是 1080p 的版面，清晰一倍。
使用当前主题（投影、深色）；页脚注明数据来源。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="143" />
        <source>Open session</source>
        <translation>打开会话</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="174" />
        <location filename="../../gemmviz/ui/files.py" line="178" />
        <location filename="../../gemmviz/ui/files.py" line="221" />
        <source>Cannot open session</source>
        <translation>无法打开会话</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="178" />
        <source>{0}: not enough memory to open it</source>
        <translation>{0}：内存不足，无法打开</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="184" />
        <source>Cannot show session</source>
        <translation>无法显示会话</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="215" />
        <source>{path} no longer exists; removed from Open recent.</source>
        <translation>{path} 已不存在；已从“最近打开”中移除。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/recovery.py" line="116" />
        <source>Recovery file refused</source>
        <translation>恢复文件被拒绝</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/recovery.py" line="121" />
        <source>Restore results?</source>
        <translation>恢复结果？</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/recovery.py" line="123" />
        <source>Restore {n} result from the last session that ended unexpectedly?</source>
        <translation>上次意外结束的会话留下了 {n} 个结果，要恢复吗？</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/recovery.py" line="125" />
        <source>Restore {n} results from the last session that ended unexpectedly?</source>
        <translation>上次意外结束的会话留下了 {n} 个结果，要恢复吗？</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/recovery.py" line="142" />
        <source>Save session</source>
        <translation>保存会话</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/recovery.py" line="142" />
        <source>gemmviz sessions (*.json)</source>
        <translation>gemmviz 会话 (*.json)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/recovery.py" line="157" />
        <source>Save results?</source>
        <translation>保存结果？</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/recovery.py" line="159" />
        <source>{n} live result not saved. Save them before closing?</source>
        <translation>有 {n} 个实时结果还没有保存。关闭前要保存吗？</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/recovery.py" line="161" />
        <source>{n} live results not saved. Save them before closing?</source>
        <translation>有 {n} 个实时结果还没有保存。关闭前要保存吗？</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="92" />
        <source>Every file gemmviz opens ({patterns})</source>
        <translation>gemmviz 能打开的所有文件 ({patterns})</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="94" />
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="154" />
        <source>Cannot open the file</source>
        <translation>无法打开文件</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="154" />
        <source>{path}: gemmviz opens {known} files</source>
        <translation>{path}：gemmviz 只能打开 {known} 文件</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="218" />
        <source>{path} is no longer a regular file (a folder, a FIFO or a device now); removed from Open recent.</source>
        <translation>{path} 已不再是普通文件（现在是文件夹、FIFO 或设备）；已从“最近打开”中移除。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="236" />
        <source>Nothing to save</source>
        <translation>没有可保存的内容</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="236" />
        <source>There are no live results yet: run something first.</source>
        <translation>还没有实时结果：请先运行一次。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="243" />
        <source>Cannot save session</source>
        <translation>无法保存会话</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="246" />
        <source>Session saved to {path}</source>
        <translation>会话已保存到 {path}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="250" />
        <source>Export CSV</source>
        <translation>导出 CSV</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="257" />
        <source>Nothing to export</source>
        <translation>没有可导出的内容</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="257" />
        <source>There are no results to export yet.</source>
        <translation>还没有可导出的结果。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="262" />
        <source>Cannot export CSV</source>
        <translation>无法导出 CSV</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="301" />
        <source>Exercise checks</source>
        <translation>练习检查</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="310" />
        <source>gemmviz sessions</source>
        <translation>gemmviz 会话</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="314" />
        <source>Lessons</source>
        <translation>课程</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="56" />
        <source>SMs × time</source>
        <translation>SM × 时间</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="56" />
        <source>Model vs measured</source>
        <translation>模型与实测</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="57" />
        <location filename="../../gemmviz/ui/hardware/tab.py" line="145" />
        <source>Hierarchical roofline</source>
        <translation>分层 Roofline 模型</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="58" />
        <source>Last wave: filling the GPU</source>
        <translation>最后一波：填满 GPU</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="148" />
        <source>FLOP / byte at each level</source>
        <translation>各存储层级的 FLOP / 字节</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="162" />
        <source>FP32 peak {0} TFLOP/s</source>
        <translation>FP32 峰值 {0} TFLOP/s</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="217" />
        <source>L1/shared</source>
        <translation>L1/共享内存</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="174" />
        <source>model: {0} FLOP/B</source>
        <translation>模型：{0} FLOP/B</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="57" />
        <source>Gap between two kernels</source>
        <translation>两个核函数之间的差距</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="58" />
        <source>Pipeline on one SM</source>
        <translation>单个 SM 上的流水线</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="100" />
        <source>{n} blocks</source>
        <translation>{n} 个线程块</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="273" />
        <location filename="../../gemmviz/ui/hardware/tab.py" line="504" />
        <location filename="../../gemmviz/ui/tiling/view.py" line="106" />
        <location filename="../../gemmviz/ui/tiling/view.py" line="590" />
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="351" />
        <source>counters</source>
        <translation>计数器</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="352" />
        <source>trace</source>
        <translation>轨迹</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="451" />
        <source>.
Profiled or traced results appear here when a session has them.</source>
        <translation>。
会话中有分析过或带轨迹的结果时，会显示在这里。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="455" />
        <source>{series} at {size}: preparing its {n} blocks…</source>
        <translation>{series}，规模 {size}：正在准备它的 {n} 个线程块…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="499" />
        <location filename="../../gemmviz/ui/tiling/view.py" line="106" />
        <location filename="../../gemmviz/ui/tiling/view.py" line="595" />
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/tab.py" line="521" />
        <source>{us} µs · {n} blocks</source>
        <translation>{us} µs · {n} 个线程块</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/roofline.py" line="31" />
        <source>above the roof: caches serve traffic the model counts as global</source>
        <translation>高于屋顶：模型算作全局内存的流量有一部分由缓存提供</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/roofline.py" line="32" />
        <source>above the roof: caches serve
traffic the model counts as global</source>
        <translation>高于屋顶：模型算作全局内存
的流量有一部分由缓存提供</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/roofline.py" line="33" />
        <source>above the roof:
caches</source>
        <translation>高于屋顶：
缓存</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/kinds/dashboard.py" line="10" />
        <source>No roofline: a CPU-only session has no GPU results to place under a GPU's roof</source>
        <translation>没有 Roofline 模型：仅有 CPU 的会话没有可放在 GPU 屋顶下的 GPU 结果</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/kinds/dashboard.py" line="26" />
        <location filename="../../gemmviz/ui/charts/roofline.py" line="45" />
        <source>Roofline</source>
        <translation>Roofline 模型</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/roofline.py" line="46" />
        <source>arithmetic intensity (FLOP / byte of global traffic, from the model)</source>
        <translation>算术强度（FLOP / 全局内存流量的字节，来自模型）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/roofline.py" line="47" />
        <source>GFLOP/s (measured)</source>
        <translation>GFLOP/s（实测）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/roofline.py" line="48" />
        <source>FLOP / byte (model)</source>
        <translation>FLOP / 字节（模型）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/roofline.py" line="97" />
        <source>Roofline of {device}</source>
        <translation>{device} 的 Roofline 模型</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="355" />
        <location filename="../../gemmviz/ui/charts/roofline.py" line="102" />
        <source>FP32 peak</source>
        <translation>FP32 峰值</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/roofline.py" line="136" />
        <source>ridge {ridge} FLOP/B</source>
        <translation>脊点 {ridge} FLOP/B</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/roofline.py" line="116" />
        <source>{bandwidth} GB/s (measured copy)</source>
        <translation>{bandwidth} GB/s（实测拷贝带宽）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/roofline.py" line="138" />
        <source>Roofline: no ceilings measured for this GPU (run gemmviz ceilings on it)</source>
        <translation>Roofline 模型：这块 GPU 还没有测过屋顶（在它上面运行 gemmviz ceilings）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/roofline.py" line="304" />
        <source>{pct}% of the roof here ({roof} GFLOP/s)</source>
        <translation>达到此处屋顶的 {pct}%（{roof} GFLOP/s）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/roofline.py" line="306" />
        <source>no roof measured</source>
        <translation>没有测得的屋顶</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/roofline.py" line="314" />
        <location filename="../../gemmviz/ui/hardware/tab.py" line="147" />
        <location filename="../../gemmviz/ui/hardware/tab.py" line="346" />
        <location filename="../../gemmviz/ui/hardware/traffic.py" line="239" />
        <source>{series} at {size}</source>
        <translation>{series}，规模 {size}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/roofline.py" line="315" />
        <source>{intensity} FLOP/byte, {gflops} GFLOP/s</source>
        <translation>{intensity} FLOP/字节，{gflops} GFLOP/s</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="44" />
        <source>CPU triple loop</source>
        <translation>CPU 三重循环</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="45" />
        <source>CPU BLAS (numpy)</source>
        <translation>CPU BLAS（numpy）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="46" />
        <source>GPU naive</source>
        <translation>GPU 朴素版</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="47" />
        <source>GPU naive, uncoalesced</source>
        <translation>GPU 朴素版，未合并访存</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="48" />
        <source>GPU shared-memory tiled</source>
        <translation>GPU 共享内存分块</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="49" />
        <source>GPU tiled, padded shared memory</source>
        <translation>GPU 分块，共享内存填充</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="50" />
        <source>GPU 1D block tiling</source>
        <translation>GPU 一维线程块分块</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="51" />
        <source>GPU 2D block tiling</source>
        <translation>GPU 二维线程块分块</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="52" />
        <source>GPU 2D tiling, float4 loads</source>
        <translation>GPU 二维分块，float4 加载</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="53" />
        <source>GPU 2D tiling, double-buffered</source>
        <translation>GPU 二维分块，双缓冲</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="54" />
        <source>GPU warp tiling</source>
        <translation>GPU 线程束分块</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="55" />
        <source>GPU warp tiling, cp.async pipeline</source>
        <translation>GPU 线程束分块，cp.async 流水线</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="56" />
        <source>GPU warp tiling, cp.async, any size</source>
        <translation>GPU 线程束分块，cp.async，任意尺寸</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="57" />
        <source>GPU tensor cores (WMMA TF32)</source>
        <translation>GPU 张量核心（WMMA TF32）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="58" />
        <source>GPU tensor cores (mma.sync TF32)</source>
        <translation>GPU 张量核心（mma.sync TF32）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="59" />
        <source>GPU Hopper (TMA + wgmma TF32)</source>
        <translation>GPU Hopper（TMA + wgmma TF32）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="60" />
        <source>cuBLAS SGEMM (FP32)</source>
        <translation>cuBLAS SGEMM（FP32）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="61" />
        <source>cuBLAS SGEMM (TF32 tensor cores)</source>
        <translation>cuBLAS SGEMM（TF32 张量核心）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="65" />
        <source>The seeds' V0: three nested loops on one CPU core, compiled to machine code by numba.</source>
        <translation>原文的 V0：在一个 CPU 核心上运行的三重循环，由 numba 编译成机器码。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="66" />
        <source>numpy's matmul: an optimised multi-threaded BLAS SGEMM on the CPU.</source>
        <translation>numpy 的 matmul：CPU 上经过优化的多线程 BLAS SGEMM。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="67" />
        <source>The seeds' V1: one thread per element of C, every operand read from global memory.</source>
        <translation>原文的 V1：C 的每个元素一个线程，每个操作数都从全局内存读取。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="68" />
        <source>The naive kernel with threadIdx.x walking down a column of C: no warp access is coalesced.</source>
        <translation>朴素核函数，但 threadIdx.x 沿 C 的一列向下走：线程束的访存全都无法合并。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="69" />
        <source>The seeds' V2: TILE×TILE tiles of A and B staged in shared memory, each reused TILE times.</source>
        <translation>原文的 V2：A 和 B 的 TILE×TILE 分块先放进共享内存，每个值被复用 TILE 次。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="70" />
        <source>The seeds' V2 with one extra column per shared array, the textbook fix for bank conflicts.</source>
        <translation>原文的 V2，每个共享内存数组多一列：解决 bank 冲突的教科书做法。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="71" />
        <source>Each thread computes 8 results down a column: one B value from shared memory feeds 8 FMAs.</source>
        <translation>每个线程沿一列计算 8 个结果：从共享内存读出的一个 B 值供 8 次 FMA 使用。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="72" />
        <source>Each thread computes an 8x8 register tile of C from 8 values of A and 8 of B.</source>
        <translation>每个线程用 A 的 8 个值和 B 的 8 个值，在寄存器里算出 C 的一个 8x8 分块。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="73" />
        <source>2D block tiling with 16-byte loads and stores, A transposed in shared memory.</source>
        <translation>二维线程块分块，使用 16 字节的加载和存储，A 在共享内存中转置存放。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="74" />
        <source>As float4 tiling, with two shared buffers: the next tiles load while these are used.</source>
        <translation>与 float4 分块相同，但有两份共享内存缓冲：使用这一份分块时，下一份同时在加载。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="75" />
        <source>Block, warp and thread tiles: each warp owns a tile of C, each thread a small tile per sub-tile.</source>
        <translation>线程块、线程束和线程三级分块：每个线程束负责 C 的一个分块，每个线程在每个子分块中负责一个小分块。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="78" />
        <source>Warp tiling with 128×128 block tiles and 8×8 per thread (two thirds of the L2 traffic of 64×128 tiles), fed by cp.async: the next K-slices copy straight into shared memory while this one multiplies, A lands transposed without bank conflicts, and small grids split K across blocks to fill the GPU.</source>
        <translation>线程束分块，线程块分块为 128×128、每个线程 8×8（L2 流量只有 64×128 分块的三分之二），由 cp.async 供数：当前这一段 K 在做乘法时，下一段 K 直接拷贝进共享内存；A 转置存放且没有 bank 冲突；规模小时把 K 拆给多个线程块，让 GPU 充分忙起来。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="82" />
        <source>The cp.async warp-tiling kernel for any size, with no padded copies: copies that fall outside A or B are issued with a source size of 0 bytes (the shared tiles get zeros, no memory is read) and edge tiles store with bounds checks, while interior tiles run gpu-cpasync's code. K is split across blocks whenever that fills the last wave better: at 2048×3072×4096, 192 tiles of 128×256 on 132 SMs would leave the second of two waves half empty; split in two, 384 blocks fill three waves.</source>
        <translation>任意尺寸的 cp.async 线程束分块核函数，不做补零副本：落在 A 或 B 之外的拷贝以 0 字节的源大小发出（共享内存分块得到零，不读内存），边缘分块的写回带边界检查，内部分块运行 gpu-cpasync 的代码。只要能更好地填满最后一波，就把 K 拆给多个线程块：在 2048×3072×4096，132 个 SM 上 192 个 128×256 分块会让两波中的第二波空一半；拆成两份后，384 个线程块正好填满三波。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="86" />
        <source>TF32 tensor-core multiply-adds through WMMA, block tile in shared memory, cp.async pipeline.</source>
        <translation>通过 WMMA 使用 TF32 张量核心做乘加，线程块分块放在共享内存中，cp.async 流水线。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="89" />
        <source>TF32 mma.sync with ldmatrix fragment loads: fewer shared-memory instructions than WMMA.</source>
        <translation>TF32 mma.sync，用 ldmatrix 加载片段：共享内存指令比 WMMA 更少。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="90" />
        <source>Hopper's own machinery. One thread of a producer warpgroup copies whole tiles of A and B from global into shared memory with single TMA instructions (cp.async.bulk.tensor), into a ring of stages; each stage has a 'full' mbarrier (it counts the bytes the copy delivers) and an 'empty' one (the consumers arrive when they are done with it, and the producer waits on it before refilling the stage). Two consumer warpgroups issue warpgroup MMAs (wgmma, 64 rows by BM columns by 8 deep, asynchronous) straight from shared memory. TF32 wgmma wants both operands K-major, and B (row-major K×N) is not, so the kernel computes the transposed product Cᵀ = Bᵀ·Aᵀ: the B tile comes through registers, where no layout is required, and the A tile is read by the tensor cores from shared memory as it stands. Its tile shape follows the size: 256×128 tiles from 2048³ up, past one wave in persistent 2-block clusters along a Hilbert curve; 192×128 tiles, or 128×64 with one consumer warpgroup, where those fill the 132 SMs better; each result's note says which ran.</source>
        <translation>Hopper 自己的机制。生产者 warpgroup 中的一个线程用单条 TMA 指令（cp.async.bulk.tensor）把 A 和 B 的整个分块从全局内存拷贝进共享内存，放入一个由若干级（stage）组成的环形缓冲；每一级有一个“满”mbarrier（统计拷贝送达的字节数）和一个“空”mbarrier（消费者用完这一级时到达，生产者在重新填充之前等待它）。两个消费者 warpgroup 直接从共享内存发出 warpgroup MMA（wgmma，64 行 × BM 列 × 8 深，异步执行）。TF32 的 wgmma 要求两个操作数都是 K 维连续（K-major），而 B（行主序的 K×N）不是，所以核函数计算转置后的乘积 Cᵀ = Bᵀ·Aᵀ：B 分块经由寄存器送入（寄存器不要求布局），A 分块则由张量核心按原样从共享内存读取。分块形状随规模而定：2048³ 及以上用 256×128 分块，超过一波时用持久化的 2 块集群，按 Hilbert 曲线排序；192×128 分块或只用一个消费者线程束组的 128×64 分块更能填满 132 个 SM 时就用它们；每个结果的备注写明实际运行的配置。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="94" />
        <source>NVIDIA's library SGEMM in plain FP32 (no tensor cores): the bar for hand-written kernels.</source>
        <translation>NVIDIA 库中的纯 FP32 SGEMM（不用张量核心）：手写核函数要追赶的标杆。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="95" />
        <source>The same cuBLAS call with TF32 tensor-core math: faster, with a 10-bit mantissa on the inputs.</source>
        <translation>同样的 cuBLAS 调用，改用 TF32 张量核心计算：更快，但输入只保留 10 位尾数。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/status.py" line="72" />
        <location filename="../../gemmviz/ui/status.py" line="108" />
        <source>Hide this notice</source>
        <translation>隐藏这条提示</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/status.py" line="313" />
        <source>~{seconds} s left</source>
        <translation>还剩约 {seconds} 秒</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/trace.py" line="42" />
        <source>No block trace in this session: run `gemmviz profile` on a GPU</source>
        <translation>这个会话没有线程块轨迹：请在 GPU 上运行 `gemmviz profile`</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/trace.py" line="233" />
        <source>{series} at {size}: no block trace</source>
        <translation>{series}，规模 {size}：没有线程块轨迹</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/trace.py" line="246" />
        <source>{waves} waves of {slots}</source>
        <translation>{waves} 波（每波 {slots} 个）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/trace.py" line="251" />
        <source>{blocks} blocks, {waves}</source>
        <translation>{blocks} 个线程块，{waves}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/trace.py" line="253" />
        <source>{case} · {blocks} blocks, {waves}</source>
        <translation>{case} · {blocks} 个线程块，{waves}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/trace.py" line="257" />
        <source>{series} at {size}: {blocks} blocks, {waves}</source>
        <translation>{series}，规模 {size}：{blocks} 个线程块，{waves}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/trace.py" line="262" />
        <source>{case} · {blocks} blocks — {idle}% of SM-time idle</source>
        <translation>{case} · {blocks} 个线程块 — {idle}% 的 SM 时间空闲</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/trace.py" line="266" />
        <source>(model)</source>
        <translation>（模型）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/trace.py" line="275" />
        <source>time (µs)</source>
        <translation>时间（微秒）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/trace.py" line="276" />
        <source>resident</source>
        <translation>驻留数</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/trace.py" line="287" />
        <source>last wave: {blocks} blocks on {used} of {sms} SMs — {idle}% of SM-time idle</source>
        <translation>最后一波：{blocks} 个线程块，在 {sms} 个 SM 中的 {used} 个上 — {idle}% 的 SM 时间空闲</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/trace.py" line="347" />
        <source>tail: {pct}% of the run</source>
        <translation>尾部：运行时间的 {pct}%</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/trace.py" line="394" />
        <source>wave {n}</source>
        <translation>第 {n} 波</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/trace.py" line="467" />
        <source>SM rank</source>
        <translation>SM 排名</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/trace.py" line="481" />
        <source>most at once: {n}</source>
        <translation>同时最多：{n}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/traffic.py" line="24" />
        <source>No hardware counters in this session: run `gemmviz profile` on a GPU</source>
        <translation>这个会话没有硬件计数器：请在 GPU 上运行 `gemmviz profile`</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/traffic.py" line="43" />
        <source>{series} at {size}: no hardware counters</source>
        <translation>{series}，规模 {size}：没有硬件计数器</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/traffic.py" line="56" />
        <source>shared</source>
        <translation>共享内存</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/traffic.py" line="57" />
        <source>conflicts</source>
        <translation>冲突</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/traffic.py" line="60" />
        <source>model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/traffic.py" line="61" />
        <source>measured (ncu)</source>
        <translation>实测（ncu）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/traffic.py" line="89" />
        <source>not counted</source>
        <translation>未统计</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/traffic.py" line="95" />
        <source>{pct}
of model</source>
        <translation>模型的
{pct}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/traffic.py" line="97" />
        <source>{ratio}×
model</source>
        <translation>模型的
{ratio} 倍</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/traffic.py" line="149" />
        <source>Measured traffic per memory level at {size}</source>
        <translation>{size} 时各级存储的实测流量</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/traffic.py" line="151" />
        <source>Measured traffic per memory level</source>
        <translation>各级存储的实测流量</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/traffic.py" line="154" />
        <source>above each pair: {second} ÷ {first}</source>
        <translation>每对柱上方：{second} ÷ {first}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/traffic.py" line="237" />
        <source>Model vs measured traffic</source>
        <translation>模型流量与实测流量</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/traffic.py" line="326" />
        <source>above the bars: measured ÷ model</source>
        <translation>柱上数字：实测 ÷ 模型</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/traffic.py" line="179" />
        <source>bytes (log scale)</source>
        <translation>字节（对数坐标）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/fonts.py" line="124" />
        <source>{where}no installed font has {n} of its characters, so they would show as boxes: {chars} ({codes}). Install a font that has them, e.g. sudo apt install {packages}, and start gemmviz again.</source>
        <translation>{where}已安装的字体都没有其中 {n} 个字符，它们会显示成方框：{chars}（{codes}）。请安装包含这些字符的字体，例如 sudo apt install {packages}，然后重新启动 gemmviz。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="45" />
        <source>{ratio} slower</source>
        <translation>慢 {ratio}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="60" />
        <source>not in the session: the ceilings measured on a {gpu} (gemmviz ceilings)</source>
        <translation>会话中没有：取自在 {gpu} 上测得的屋顶（gemmviz ceilings）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="116" />
        <location filename="../../gemmviz/ui/exercise/report.py" line="174" />
        <source>reference</source>
        <translation>参照</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="171" />
        <source>Open two or more sessions (File ▸ Open) to compare machines.</source>
        <translation>打开两个或更多会话（文件 ▸ 打开）来比较不同的机器。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="189" />
        <location filename="../../gemmviz/ui/charts/compare.py" line="233" />
        <location filename="../../gemmviz/ui/tiling/view.py" line="177" />
        <source>kernel</source>
        <translation>核函数</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="189" />
        <location filename="../../gemmviz/ui/tiling/view.py" line="190" />
        <source>size</source>
        <translation>规模</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="198" />
        <source>× vs reference</source>
        <translation>相对参考的倍数</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="192" />
        <source>follows</source>
        <translation>跟随</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="298" />
        <source>Only one session is open. Open another to compare two machines: File ▸ Open recorded or published session (an H100 and an H200 recording ship with gemmviz).</source>
        <translation>只打开了一个会话。再打开一个，才能比较两台机器：文件 ▸ 打开录制或公开的会话（gemmviz 自带 H100 和 H200 的录制）。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="328" />
        <source>a CPU kernel: the GPUs' bandwidth and FP32 peak do not apply</source>
        <translation>CPU 核函数：GPU 的带宽和 FP32 峰值与它无关</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="338" />
        <source>the machines' bandwidth or FP32 peak is not recorded</source>
        <translation>未记录两台机器的带宽或 FP32 峰值</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="339" />
        <source>this kernel {speed}, bandwidth {bandwidth}, FP32 peak {peak} (other ÷ reference)</source>
        <translation>这个核函数 {speed}，带宽 {bandwidth}，FP32 峰值 {peak}（另一台 ÷ 参照）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="355" />
        <source>bandwidth (measured)</source>
        <translation>带宽（实测）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="359" />
        <source>(reference)</source>
        <translation>（参照）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/tab.py" line="39" />
        <location filename="../../gemmviz/ui/charts/tab.py" line="179" />
        <source>all four</source>
        <translation>全部四个</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/tab.py" line="39" />
        <source>table</source>
        <translation>表格</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/tab.py" line="39" />
        <source>seed kernels</source>
        <translation>原文的核函数</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/tab.py" line="39" />
        <location filename="../../gemmviz/ui/charts/tab.py" line="179" />
        <source>two charts</source>
        <translation>两张图</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/tab.py" line="40" />
        <source>ladder</source>
        <translation>优化阶梯</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/tab.py" line="40" />
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/tab.py" line="65" />
        <source>One chart at a time reads better on a projector</source>
        <translation>投影时一次只看一张图更清楚</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/tab.py" line="66" />
        <source>show</source>
        <translation>显示</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/tab.py" line="69" />
        <source>series</source>
        <translation>系列</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/tab.py" line="75" />
        <source>Show the {name} series, in live results and loaded sessions alike (click a legend entry to show or hide one series)</source>
        <translation>显示“{name}”这组系列，实时结果和已载入的会话都一样（点击图例中的某一项可以单独显示或隐藏它）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/panels.py" line="51" />
        <source>vs</source>
        <translation>相对</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/panels.py" line="51" />
        <source>at</source>
        <translation>规模</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="175" />
        <location filename="../../gemmviz/ui/charts/panels.py" line="105" />
        <source>live</source>
        <translation>实时</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="278" />
        <source>Open the {gpu} recording beside it</source>
        <translation>并排打开 {gpu} 的录制</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/compare.py" line="303" />
        <source>No kernel and size appears both in the reference and in another session.</source>
        <translation>没有哪个核函数和规模同时出现在参照和另一个会话中。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/roofline/tab.py" line="32" />
        <source>Click a point (Tab or N: the next one under it) to see the seeds' arithmetic for it beside what was measured. In the Charts tab, select two results to see whether they differ by more than their noise.</source>
        <translation>点击一个点（Tab 或 N 换到重叠的下一个点）：原文的计算与实测对照。在“图表”页选中两个结果：差别是否超出噪声。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/roofline/tab.py" line="58" />
        <source>Measure ceilings</source>
        <translation>测量性能上限</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/roofline/tab.py" line="60" />
        <source>Copy bandwidth, cuBLAS FP32 and TF32 rates, measured once on this GPU and cached (a few seconds)</source>
        <translation>拷贝带宽、cuBLAS FP32 和 TF32 的速度，在这块 GPU 上测一次并缓存（几秒钟）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="47" />
        <location filename="../../gemmviz/ui/tiling/view.py" line="116" />
        <source>tile</source>
        <translation>分块</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="47" />
        <source>block</source>
        <translation>线程块</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="107" />
        <source>◀ Step</source>
        <translation>◀ 上一步</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="108" />
        <source>Step ▶</source>
        <translation>下一步 ▶</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="113" />
        <source> steps/s</source>
        <translation> 步/秒</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="118" />
        <source>The kernel's tile (or block) edge in this animation</source>
        <translation>动画中核函数的分块（或线程块）边长</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="123" />
        <source>The matrix size animated: 'legible' picks one of a few blocks and K-steps for the chosen kernel and tile; 'benchmark' is the run panel's size (or the result shown)</source>
        <translation>动画使用的矩阵规模：“易读”为所选核函数和分块挑一个只有几个线程块和 K 步的规模；“基准”是运行面板里的规模（或正在显示的结果的规模）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="134" />
        <source>M×N×K, Enter</source>
        <translation>M×N×K，回车</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="137" />
        <source>legible</source>
        <translation>易读</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="241" />
        <source>benchmark</source>
        <translation>基准</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="145" />
        <source>Another kernel's block beside this one, in lockstep, with its counters</source>
        <translation>在旁边同步显示另一个核函数的线程块及其计数</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="148" />
        <source>nothing beside</source>
        <translation>不并排显示</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="62" />
        <source>beside: {kernel}</source>
        <translation>旁边：{kernel}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="167" />
        <source>Code</source>
        <translation>代码</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="171" />
        <source>Show the kernel's source beside the animation, its current line highlighted</source>
        <translation>在动画旁显示核函数源代码，并高亮当前行</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="192" />
        <source>block y,x</source>
        <translation>线程块 y,x</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="195" />
        <source>thread y,x</source>
        <translation>线程 y,x</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/view.py" line="242" />
        <source>benchmark {size}</source>
        <translation>基准 {size}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/layout.py" line="62" />
        <source>A tile</source>
        <translation>A 分块</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/layout.py" line="62" />
        <source>B tile</source>
        <translation>B 分块</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/background.py" line="146" />
        <location filename="../../gemmviz/ui/tiling/layout.py" line="292" />
        <source>shared memory (on chip)</source>
        <translation>共享内存（片上）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/layout.py" line="346" />
        <source>a cell per thread</source>
        <translation>每个线程一⁠格</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/layout.py" line="580" />
        <source>registers of the thread:</source>
        <translation>该线程的寄存器：</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/layout.py" line="580" />
        <source>{tm}+{tn} operands, {tm}×{tn} sums</source>
        <translation>{tm}+{tn} 个操作数，{tm}×{tn} 个累加和</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/background.py" line="121" />
        <location filename="../../gemmviz/ui/tiling/background.py" line="155" />
        <source>global memory (HBM)</source>
        <translation>全局内存（HBM）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/background.py" line="121" />
        <location filename="../../gemmviz/ui/tiling/background.py" line="135" />
        <location filename="../../gemmviz/ui/tiling/background.py" line="155" />
        <source>global memory</source>
        <translation>全局内存</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/layout.py" line="345" />
        <source>block of C: a cell per thread</source>
        <translation>C 的线程块：每线程一格</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/layout.py" line="345" />
        <source>part of the block of C: a cell per thread</source>
        <translation>C 线程块的一部分：每线程一格</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/block.py" line="359" />
        <location filename="../../gemmviz/ui/tiling/layout.py" line="466" />
        <source>__syncthreads()  — barrier</source>
        <translation>__syncthreads()  — 同步屏障</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_naive.py" line="22" />
        <source>block {n}</source>
        <translation>线程块 {n}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_tiled.py" line="40" />
        <source>{what} {n}-way</source>
        <translation>{what} {n} 路</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_tiled.py" line="41" />
        <source>stores</source>
        <translation>写入</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_tiled.py" line="41" />
        <source>reads</source>
        <translation>读取</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_tiled.py" line="44" />
        <source>bank conflicts: {which}</source>
        <translation>bank 冲突：{which}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_tiled.py" line="44" />
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_blocktile2d.py" line="22" />
        <source>{bm}×{bn}×{bk}, {tm}×{tn} per thread</source>
        <translation>{bm}×{bn}×{bk}，每个线程 {tm}×{tn}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_naive.py" line="46" />
        <source>unused: the naive kernel reads global memory</source>
        <translation>未使用：朴素核函数直接读全局内存</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/bounds_bug.py" line="55" />
        <source>block ({by}, {bx}) of {gy}×{gx}  ·  step {i}/{n}</source>
        <translation>线程块 ({by}, {bx})，共 {gy}×{gx}  ·  第 {i}/{n} 步</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/bounds_bug.py" line="61" />
        <source>= {right} right + {wrong} wrong</source>
        <translation>= {right} 次正确 + {wrong} 次错误</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/bounds_bug.py" line="68" />
        <source>{out} of this edge block's {n} threads are outside C: no reuse figure here</source>
        <translation>这个边缘线程块的 {n} 个线程中有 {out} 个在 C 之外：此处不给出复用倍数</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/bounds_bug.py" line="89" />
        <source>{n} right</source>
        <translation>{n} 次正确写入</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/bounds_bug.py" line="90" />
        <source>{n} overwrite other cells of C</source>
        <translation>{n} 次覆盖 C 的其他元素</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/bounds_bug.py" line="91" />
        <source>{n} past the end of C</source>
        <translation>{n} 次写到 C 的末尾之外</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/bounds_bug.py" line="60" />
        <source>global stores  {n}</source>
        <translation>全局内存写入   {n}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/report.py" line="25" />
        <source>compiles</source>
        <translation>编译</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/report.py" line="25" />
        <source>correct</source>
        <translation>正确</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/report.py" line="26" />
        <source>memory-safe</source>
        <translation>内存安全</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/report.py" line="27" />
        <source>race-free</source>
        <translation>无竞争</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/report.py" line="27" />
        <source>speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/report.py" line="28" />
        <source>accesses</source>
        <translation>访存</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/checking.py" line="40" />
        <source>Check cancelled.</source>
        <translation>检查已取消。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/checking.py" line="44" />
        <source>The check failed: {0}</source>
        <translation>检查失败：{0}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="95" />
        <source>New from starter…</source>
        <translation>从起始代码新建…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="96" />
        <source>Open kernel…</source>
        <translation>打开核函数…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="97" />
        <source>Open check…</source>
        <translation>打开检查…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="98" />
        <source>Check now</source>
        <translation>立即检查</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="99" />
        <location filename="../../gemmviz/ui/export/animation.py" line="194" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="100" />
        <source>Check on save</source>
        <translation>保存时检查</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="274" />
        <source>Goal: at least {1}× as fast as {0}, measured beside it.</source>
        <translation>目标：速度至少是 {0} 的 {1} 倍（与它一同测量）。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="287" />
        <source>No kernel file open: write the starter, or open your .cu.</source>
        <translation>还没有打开核函数文件：写出起始代码，或者打开你的 .cu 文件。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="175" />
        <source>Your code (the lines the check cites are highlighted)</source>
        <translation>你的代码（检查引用的行已高亮）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="169" />
        <source>No check yet: open your kernel (or write the starter) and press Check now. The verdicts, the cause and your code, its cited lines highlighted, appear here.</source>
        <translation>还没有检查：打开你的核函数（或写出起始代码），然后按“立即检查”。判定、原因和你的代码（引用的行已高亮）会显示在这里。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="209" />
        <source>What your kernel touched: coalescing (global loads)</source>
        <translation>你的核函数访问了什么：合并访存（全局内存加载）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="213" />
        <source>What your kernel touched: bank conflicts (shared memory)</source>
        <translation>你的核函数访问了什么：bank 冲突（共享内存）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="315" />
        <source>Show a hint ({0} of {1})</source>
        <translation>显示提示（第 {0} 条，共 {1} 条）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="328" />
        <source>Folder for your kernel</source>
        <translation>存放核函数的文件夹</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="340" />
        <source>{0} is already there: opened it (your work is kept).</source>
        <translation>{0} 已经存在：已打开它（你的代码保留不变）。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="345" />
        <source>Cannot write the starter</source>
        <translation>无法写出起始代码</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="351" />
        <source>Open your kernel</source>
        <translation>打开你的核函数</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="351" />
        <source>CUDA source (*.cu)</source>
        <translation>CUDA 源文件 (*.cu)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="288" />
        <source>Your kernel: {0}</source>
        <translation>你的核函数：{0}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="395" />
        <source>Open a check</source>
        <translation>打开一个检查</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="395" />
        <source>Exercise checks (*.check.json *.json)</source>
        <translation>练习检查 (*.check.json *.json)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="407" />
        <source>Cannot open the check</source>
        <translation>无法打开检查</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="413" />
        <source>Opened the check {0}</source>
        <translation>已打开检查 {0}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="421" />
        <source>Open your kernel first (or write the starter).</source>
        <translation>请先打开你的核函数（或写出起始代码）。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="435" />
        <source>Checking {0}…</source>
        <translation>正在检查 {0}…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="307" />
        <location filename="../../gemmviz/ui/exercise/tab.py" line="458" />
        <source>Checked {0}</source>
        <translation>已检查 {0}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="464" />
        <source>The check could not be saved: {0}</source>
        <translation>无法保存检查：{0}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="512" />
        <source>Check of {0}, {1}</source>
        <translation>{0} 的检查，{1}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/tab.py" line="512" />
        <source>an unnamed file</source>
        <translation>未命名的文件</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/report.py" line="61" />
        <source>Likeliest cause: {0}</source>
        <translation>最可能的原因：{0}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/report.py" line="66" />
        <source>No GPU here: {0}. Run gemmviz exercise check on a GPU machine, then open the check file it writes here.</source>
        <translation>这里没有 GPU：{0}。请在有 GPU 的机器上运行 gemmviz exercise check，然后在这里打开它写出的检查文件。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/report.py" line="68" />
        <source>Every goal passed.</source>
        <translation>所有目标都已达成。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/report.py" line="86" />
        <source>Wrong regions of C at {0} (darker: more wrong)</source>
        <translation>规模 {0} 下 C 中出错的区域（颜色越深，错得越多）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/report.py" line="90" />
        <source>C: no wrong region</source>
        <translation>C：没有出错的区域</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/report.py" line="90" />
        <source>C: not run</source>
        <translation>C：未运行</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/report.py" line="115" />
        <source>nvcc, line {0}: {1}</source>
        <translation>nvcc，第 {0} 行：{1}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/report.py" line="158" />
        <source>{0}: clean</source>
        <translation>{0}：没有问题</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/report.py" line="160" />
        <source>line {0}: {1} (×{2})</source>
        <translation>第 {0} 行：{1}（×{2}）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/report.py" line="147" />
        <source>Not run: {0}</source>
        <translation>未运行：{0}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/access.py" line="35" />
        <location filename="../../gemmviz/ui/exercise/report.py" line="173" />
        <source>yours</source>
        <translation>你的</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/handout.py" line="81" />
        <source>Notes</source>
        <translation>讲稿</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/handout.py" line="82" />
        <location filename="../../gemmviz/ui/lesson/presenter.py" line="228" />
        <source>(no notes for this step)</source>
        <translation>（这一步没有讲稿）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/handout.py" line="94" />
        <source>{title}: key frames</source>
        <translation>{title}：关键帧</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/handout.py" line="109" />
        <source>frame {i} of {n}: {kind}</source>
        <translation>第 {i} / {n} 帧：{kind}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/handout.py" line="131" />
        <location filename="../../gemmviz/ui/lesson/render.py" line="200" />
        <source>step {i} / {n}</source>
        <translation>第 {i} / {n} 步</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/handout.py" line="154" />
        <source>{title}: handout</source>
        <translation>{title}：讲义</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/render.py" line="113" />
        <source>Data: {0}</source>
        <translation>数据：{0}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/panels.py" line="129" />
        <source>, line {0}</source>
        <translation>，第 {0} 行</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/coalescing.py" line="43" />
        <source>{0} sector in {1} line</source>
        <translation>{0} 个扇区，{1} 条缓存行</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/coalescing.py" line="44" />
        <source>{0} sectors in {1} line</source>
        <translation>{0} 个扇区，{1} 条缓存行</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/coalescing.py" line="45" />
        <source>{0} sector in {1} lines</source>
        <translation>{0} 个扇区，{1} 条缓存行</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/coalescing.py" line="46" />
        <source>{0} sectors in {1} lines</source>
        <translation>{0} 个扇区，{1} 条缓存行</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/coalescing.py" line="53" />
        <source>warp {0} stores to {1} ({2})</source>
        <translation>线程束 {0} 写入 {1}（{2}）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/coalescing.py" line="53" />
        <source>warp {0} loads from {1} ({2})</source>
        <translation>线程束 {0} 读取 {1}（{2}）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/coalescing.py" line="59" />
        <source>{0} B moved for {1} B used ({2})</source>
        <translation>搬运 {0} B，实际使用 {1} B（{2}）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/coalescing.py" line="60" />
        <source>block {0} of {1}×{2} blocks, {3}</source>
        <translation>线程块 {0}，共 {1}×{2} 个线程块，{3}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/banks.py" line="31" />
        <source>warp {0} stores ({1})</source>
        <translation>线程束 {0} 写入（{1}）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/banks.py" line="31" />
        <source>warp {0} loads ({1})</source>
        <translation>线程束 {0} 读取（{1}）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/banks.py" line="87" />
        <source>32 banks</source>
        <translation>32 个 bank</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/banks.py" line="37" />
        <source>{0}-way bank conflict</source>
        <translation>{0} 路 bank 冲突</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/banks.py" line="37" />
        <source>no bank conflict</source>
        <translation>没有 bank 冲突</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/banks.py" line="38" />
        <source>{0} wavefronts, {1} needed</source>
        <translation>{0} 个波前，只需 {1} 个</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/banks.py" line="38" />
        <source>{0} wavefront, {1} needed</source>
        <translation>{0} 个波前，只需 {1} 个</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/banks.py" line="44" />
        <source>block: {0} extra per store</source>
        <translation>本线程块：每次写入多 {0} 个波前</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/banks.py" line="44" />
        <source>block: {0} extra per load</source>
        <translation>本线程块：每次读取多 {0} 个波前</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/views.py" line="68" />
        <source>Coalescing: how many 32-byte sectors one warp's load costs</source>
        <translation>合并访存：一个线程束的一次读取要取多少个 32 字节扇区</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/views.py" line="70" />
        <source>Bank conflicts: how many wavefronts one warp's shared access takes</source>
        <translation>bank 冲突：一个线程束的一次共享内存访问要多少个波前</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/views.py" line="149" />
        <source>no recorded accesses for these kernels</source>
        <translation>这些核函数没有访存记录</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/views.py" line="189" />
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/views.py" line="189" />
        <source>recorded, replayed</source>
        <translation>录制，回放</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/seed_table.py" line="148" />
        <source>Median time per product; × = the time over the size before (each doubling of N is 8× the work)</source>
        <translation>每次矩阵乘法的中位时间；“倍”是相对前一个规模的用时之比（N 每翻一倍，计算量变为 8 倍）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/seed_table.py" line="150" />
        <source>Median time per product; × = times faster than the {baseline} at the same size</source>
        <translation>每次矩阵乘法的中位时间；倍数 = 在同一规模下速度是 {baseline} 的多少倍</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/seed_table.py" line="155" />
        <source>; * one timed run, not a median</source>
        <translation>；* 只计时一次，不是中位数</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/lesson_view.py" line="218" />
        <source>R measures these kernels live on {gpu}</source>
        <translation>按 R 在 {gpu} 上实时测量这些核函数</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/lesson_view.py" line="221" />
        <source>{n} figure(s) not in this session: n/a</source>
        <translation>本会话缺少 {n} 个数字：显示为“暂无”</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/lesson_view.py" line="325" />
        <source>Measuring {n} job(s) on {gpu}…</source>
        <translation>正在 {gpu} 上测量 {n} 个任务…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/lesson_view.py" line="334" />
        <source>Measuring {done}/{total}: {label}</source>
        <translation>正在测量 {done}/{total}：{label}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/mode.py" line="215" />
        <source>Open a lesson</source>
        <translation>打开课程</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/mode.py" line="215" />
        <source>Lessons (*.toml)</source>
        <translation>课程 (*.toml)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/mode.py" line="156" />
        <location filename="../../gemmviz/ui/lesson/mode.py" line="225" />
        <source>Cannot open the lesson</source>
        <translation>无法打开课程</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/mode.py" line="235" />
        <source>Cannot open the lesson's session</source>
        <translation>无法打开课程的会话</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/mode.py" line="265" />
        <source>This lesson's session lacks {n} of its figures or views: {first}</source>
        <translation>本课程的会话缺少 {n} 个数字或视图：{first}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="43" />
        <source>source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="43" />
        <source>variant</source>
        <translation>版本</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="43" />
        <source>params</source>
        <translation>参数</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="44" />
        <source>median ms</source>
        <translation>中位数 ms</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="44" />
        <source>min ms</source>
        <translation>最小 ms</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="44" />
        <source>max ms</source>
        <translation>最大 ms</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="45" />
        <source>noise</source>
        <translation>噪声</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="45" />
        <source>× CPU loop</source>
        <translation>× CPU 循环</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="45" />
        <source>× GPU naive</source>
        <translation>× GPU 朴素版</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="46" />
        <source>% cuBLAS</source>
        <translation>cuBLAS 的 %</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="46" />
        <source>rel. error</source>
        <translation>相对误差</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="46" />
        <source>status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="47" />
        <source>% peak</source>
        <translation>峰值 %</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="48" />
        <source>kernel-only (events behind a blocking kernel)</source>
        <translation>只计核函数（在阻塞核函数之后记录事件）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="49" />
        <source>host-inclusive events (older method: includes the host's launch path)</source>
        <translation>含主机时间的事件（旧方法：包含主机发射核函数的开销）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="50" />
        <source>host wall clock</source>
        <translation>主机挂钟时间</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="90" />
        <source>median of {n} samples, noise {noise} (stdev/mean)</source>
        <translation>{n} 次采样的中位数，噪声 {noise}（标准差/均值）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="93" />
        <source>{n} sample(s) left out: the SM clock had fallen</source>
        <translation>{n} 个采样未计入：SM 时钟降低了</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="95" />
        <source>SM clock {mhz} MHz</source>
        <translation>SM 时钟 {mhz} MHz</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/charts/table.py" line="98" />
        <source>what a Python caller waits (launch + sync): {ms} ms, not charted</source>
        <translation>Python 调用方要等的时间（发射 + 同步）：{ms} 毫秒，未画入图表</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="32" />
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="438" />
        <source>empty</source>
        <translation>空</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="32" />
        <source>loading</source>
        <translation>载入中</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="32" />
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="438" />
        <source>full</source>
        <translation>满</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="33" />
        <source>consuming</source>
        <translation>使用中</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="110" />
        <source>starting</source>
        <translation>正在启动</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="110" />
        <source>waiting for the first stage</source>
        <translation>等待第 0 级（首个）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="116" />
        <source>sleeps on empty[{0}]</source>
        <translation>在 empty[{0}] 上休眠</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="116" />
        <source>passes empty[{0}]</source>
        <translation>通过 empty[{0}]</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="117" />
        <source>issued TMA → stage {0}</source>
        <translation>已发出 TMA → 第 {0} 级</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="118" />
        <source>waits for every stage, then exits</source>
        <translation>等待所有级完成，然后退出</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="118" />
        <source>exits</source>
        <translation>退出</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="122" />
        <source>passed full[{0}]</source>
        <translation>已通过 full[{0}]</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="123" />
        <source>wgmma on stage {0}</source>
        <translation>在第 {0} 级上执行 wgmma</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="124" />
        <source>arrived on empty[{0}]</source>
        <translation>已到达 empty[{0}]</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="125" />
        <source>store C (epilogue)</source>
        <translation>写回 C（收尾阶段）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="128" />
        <source>exited</source>
        <translation>已退出</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="233" />
        <source>step {i}/{n}  ·  {title}  ·  {size}  ·  block ({by}, {bx}) of {gy}×{gx}</source>
        <translation>第 {i}/{n} 步  ·  {title}  ·  {size}  ·  线程块 ({by}, {bx})，共 {gy}×{gx}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="252" />
        <source>this block so far:  TMA loaded {a} B  ·  tensor cores read {b} B of shared memory</source>
        <translation>这个线程块到目前为止：TMA 载入 {a} B  ·  张量核心读取共享内存 {b} B</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="256" />
        <source>{f} FLOP  ·  {w} mbarrier wait  ·  stored {s} B</source>
        <translation>{f} FLOP  ·  {w} 次 mbarrier 等待  ·  写回 {s} B</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="258" />
        <source>{f} FLOP  ·  {w} mbarrier waits  ·  stored {s} B</source>
        <translation>{f} FLOP  ·  {w} 次 mbarrier 等待  ·  写回 {s} B</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="345" />
        <source>producer: 1 thread</source>
        <translation>生产者：1 个线程</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="347" />
        <source>warpgroup {0}</source>
        <translation>warpgroup {0}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="387" />
        <source>stage {0}</source>
        <translation>第 {0} 级</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_hopper.py" line="504" />
        <source>shared memory: a ring of {n} stages, each an A tile {bm}×32 and a B tile 32×{bn}</source>
        <translation>共享内存：{n} 级的环形缓冲，每级一个 {bm}×32 的 A 分块和一个 32×{bn} 的 B 分块</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/export_formats.py" line="137" />
        <source>PNG image</source>
        <translation>PNG 图片</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/export_formats.py" line="145" />
        <source>SVG drawing</source>
        <translation>SVG 矢量图</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/export_formats.py" line="154" />
        <source>JPEG image</source>
        <translation>JPEG 图片</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/export_formats.py" line="162" />
        <source>WebP image</source>
        <translation>WebP 图片</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/export_formats.py" line="170" />
        <source>Animated GIF</source>
        <translation>GIF 动画</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/export_formats.py" line="178" />
        <source>MP4 video</source>
        <translation>MP4 视频</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/export_formats.py" line="187" />
        <source>PNG frames (folder)</source>
        <translation>PNG 帧（文件夹）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/export_formats.py" line="202" />
        <source>Chrome trace for Perfetto</source>
        <translation>供 Perfetto 打开的 Chrome trace</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/replay.py" line="97" />
        <source>{0}: block ({1}, {2}), step {3} of {4}</source>
        <translation>{0}：线程块 ({1}, {2})，第 {3} 步，共 {4} 步</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/replay.py" line="103" />
        <source>recorded {0} stores = the model's {1}</source>
        <translation>记录到 {0} 次存储 = 模型的 {1}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/replay.py" line="103" />
        <source>recorded {0} loads = the model's {1}</source>
        <translation>记录到 {0} 次加载 = 模型的 {1}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/replay.py" line="107" />
        <source>{0} of the model's {1} stores kept in detail (the shipped file keeps each block's first requests)</source>
        <translation>模型的 {1} 次存储中详细保留了 {0} 次（随附文件只保留每个块的前几次请求）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/replay.py" line="109" />
        <source>{0} of the model's {1} loads kept in detail (the shipped file keeps each block's first requests)</source>
        <translation>模型的 {1} 次加载中详细保留了 {0} 次（随附文件只保留每个块的前几次请求）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/replay.py" line="113" />
        <source>recorded {0} stores, the model says {1}</source>
        <translation>记录到 {0} 次存储，模型为 {1}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/replay.py" line="113" />
        <source>recorded {0} loads, the model says {1}</source>
        <translation>记录到 {0} 次加载，模型为 {1}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/replay.py" line="115" />
        <source>cells: what the warps read on the GPU, one colour a warp; outline: the model's step</source>
        <translation>格子：各线程束在 GPU 上实际读取的内容，每个线程束一种颜色；轮廓：模型的这一步</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/export/formats/animations.py" line="46" />
        <source>PNG image, one frame</source>
        <translation>PNG 图像（单帧）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/pipeline.py" line="230" />
        <source>the whole trace</source>
        <translation>整段记录</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/pipeline.py" line="231" />
        <source>the first k-steps</source>
        <translation>最初几个 k 步</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/pipeline.py" line="232" />
        <source>around the longest bubble</source>
        <translation>最长气泡附近</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/presenter.py" line="43" />
        <source>F1 or ?: all keys · number + Enter: go to a step · B / W: black / white screen · Esc: end</source>
        <translation>F1 或 ?：全部按键 · 步号 + 回车：跳到该步 · B / W：黑屏 / 白屏 · Esc：结束</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/presenter.py" line="118" />
        <location filename="../../gemmviz/ui/lesson/presenter.py" line="154" />
        <source>Presenter: {title}</source>
        <translation>演讲者视图：{title}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/presenter.py" line="122" />
        <location filename="../../gemmviz/ui/lesson/presenter.py" line="155" />
        <source>Reset clock</source>
        <translation>计时归零</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/presenter.py" line="135" />
        <location filename="../../gemmviz/ui/lesson/presenter.py" line="158" />
        <source>Now</source>
        <translation>当前</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/presenter.py" line="135" />
        <location filename="../../gemmviz/ui/lesson/presenter.py" line="159" />
        <source>Next</source>
        <translation>下一步</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/presenter.py" line="220" />
        <source>step {i} of {n}</source>
        <translation>第 {i} / {n} 步</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/presenter.py" line="226" />
        <source>End of the lesson</source>
        <translation>课程结束</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/presenter.py" line="244" />
        <source>animation frame {i} of {n}</source>
        <translation>动画第 {i} / {n} 帧</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/presenter.py" line="256" />
        <source>screen black (B: show it)</source>
        <translation>已黑屏（按 B 恢复）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/presenter.py" line="256" />
        <source>screen white (W: show it)</source>
        <translation>已白屏（按 W 恢复）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/presenter.py" line="258" />
        <source>go to step {n}: Enter</source>
        <translation>跳到第 {n} 步：按回车</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/views.py" line="372" />
        <source>P plays the animation · . , one frame</source>
        <translation>P 播放动画 · . , 逐帧</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/code.py" line="131" />
        <source>◀ barrier: every thread of the block waits here</source>
        <translation>◀ 屏障：线程块的所有线程都在这里等待</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/gap.py" line="29" />
        <source>gap</source>
        <translation>差距</translation>
    </message>
    <message>
        <location filename="../../gemmviz/core/charts/gap.py" line="30" />
        <source>where the time between two kernels goes, from their recorded counters (a gap file; --pair A,B)</source>
        <translation>两个核函数之间的时间差去了哪里，来自录制的计数器（差距文件；--pair A,B）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_padded.py" line="19" />
        <source>TILE {t}, pad {p}</source>
        <translation>TILE {t}，填充 {p}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_padded.py" line="34" />
        <source>{line} (none unpadded: the padding adds them)</source>
        <translation>{line}（不填充时没有：冲突是填充带来的）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tiling/kind_padded.py" line="35" />
        <source>{line} (none unpadded either: nothing to fix)</source>
        <translation>{line}（不填充也没有冲突：无需修复）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/exercise/gap.py" line="29" />
        <location filename="../../gemmviz/ui/exercise/gap.py" line="46" />
        <source>Where the time to the reference goes (Nsight Compute's counters)</source>
        <translation>与参考核函数的时间差去了哪里（Nsight Compute 计数器）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="48" />
        <source>→ Space PgDn</source>
        <translation>→ 空格 PgDn</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="48" />
        <source>next step</source>
        <translation>下一步</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="49" />
        <source>previous step, as it ended</source>
        <translation>上一步，停在它结束时</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="50" />
        <source>first / last step</source>
        <translation>第一步 / 最后一步</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="51" />
        <source>number, Enter</source>
        <translation>步号，回车</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="51" />
        <source>go to that step</source>
        <translation>跳到那一步</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="52" />
        <source>. or Shift+→</source>
        <translation>. 或 Shift+→</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="52" />
        <source>animation one frame on</source>
        <translation>动画前进一帧</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="53" />
        <source>, or Shift+←</source>
        <translation>, 或 Shift+←</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="53" />
        <source>animation one frame back</source>
        <translation>动画后退一帧</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="54" />
        <source>play / pause the animation</source>
        <translation>播放 / 暂停动画</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="55" />
        <source>black / white screen (again: back)</source>
        <translation>黑屏 / 白屏（再按一次恢复）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="56" />
        <source>notes window (one screen)</source>
        <translation>讲稿窗口（单屏时）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="57" />
        <source>English / 中文, same step</source>
        <translation>English / 中文，停在本步</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="58" />
        <source>measure the step live (GPU)</source>
        <translation>现场测量这一步（需要 GPU）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="59" />
        <source>reset the clock</source>
        <translation>计时归零</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="60" />
        <source>F1 or ?</source>
        <translation>F1 或 ?</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="60" />
        <source>these keys</source>
        <translation>这些按键</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/deck.py" line="61" />
        <source>end the lesson</source>
        <translation>结束课程</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/last_wave.py" line="50" />
        <source>model time (µs), not measured</source>
        <translation>模型时间（微秒），非实测</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/last_wave.py" line="56" />
        <source>time (µs), recorded on {where}</source>
        <translation>时间（微秒），录制于 {where}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/last_wave.py" line="62" />
        <source>Stream-K</source>
        <translation>Stream-K</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/last_wave.py" line="64" />
        <source>{tile} + split-K</source>
        <translation>{tile} + split-K</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/last_wave.py" line="65" />
        <source>{tile} tiles, one block each</source>
        <translation>{tile} 分块，每块一个线程块</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/hardware/last_wave.py" line="37" />
        <source>SMs by load</source>
        <translation>SM（按负载）</translation>
    </message>
</context>
<context>
    <name>AccessReplay</name>
    <message>
        <location filename="../../gemmviz/ui/accesses/replay.py" line="248" />
        <source>interior block</source>
        <translation>内部线程块</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/replay.py" line="249" />
        <source>edge block</source>
        <translation>边缘线程块</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/replay.py" line="251" />
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/replay.py" line="286" />
        <source>no recorded accesses of a kernel the schedule model covers</source>
        <translation>没有调度模型所涵盖的核函数的访问记录</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/replay.py" line="313" />
        <source>Export step</source>
        <translation>导出这一步</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/replay.py" line="321" />
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
</context>
<context>
    <name>AccessTab</name>
    <message>
        <location filename="../../gemmviz/ui/accesses/tab.py" line="68" />
        <location filename="../../gemmviz/ui/accesses/tab.py" line="95" />
        <source>Coalescing and banks</source>
        <translation>合并访存与 bank</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/tab.py" line="69" />
        <location filename="../../gemmviz/ui/accesses/tab.py" line="95" />
        <source>Block replay</source>
        <translation>线程块回放</translation>
    </message>
</context>
<context>
    <name>AccessViews</name>
    <message>
        <location filename="../../gemmviz/ui/accesses/widget.py" line="28" />
        <source>Coalescing (global loads)</source>
        <translation>合并访存（全局内存加载）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/widget.py" line="29" />
        <source>Bank conflicts (shared stores)</source>
        <translation>bank 冲突（共享内存存储）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/widget.py" line="32" />
        <source>warp {0}</source>
        <translation>warp {0}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/widget.py" line="35" />
        <source>costliest request</source>
        <translation>代价最大的请求</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/widget.py" line="36" />
        <source>request </source>
        <translation>请求 </translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/widget.py" line="38" />
        <source>0: the costliest request of each kernel; 1, 2, …: the warp's requests in order</source>
        <translation>0：每个核函数代价最大的请求；1、2、…：这个线程束的请求，按顺序</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/widget.py" line="40" />
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/widget.py" line="77" />
        <source>access records: {0}</source>
        <translation>访问记录：{0}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/widget.py" line="78" />
        <source>no access records</source>
        <translation>没有访问记录</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/widget.py" line="88" />
        <source>Export view</source>
        <translation>导出视图</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/accesses/widget.py" line="105" />
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
</context>
<context>
    <name>Lesson</name>
    <message>
        <location filename="../../gemmviz/ui/lesson/mode.py" line="117" />
        <location filename="../../gemmviz/ui/window/main.py" line="284" />
        <source>&amp;Lesson</source>
        <translation>课程(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/mode.py" line="144" />
        <source>{0} steps</source>
        <translation>{0} 步</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/mode.py" line="129" />
        <source>Open lesson file…</source>
        <translation>打开课程文件…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson/mode.py" line="133" />
        <source>&amp;Presenter view (laptop screen)</source>
        <translation>演讲者视图（笔记本屏幕）(&amp;P)</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../gemmviz/ui/window/device.py" line="82" />
        <location filename="../../gemmviz/ui/window/main.py" line="148" />
        <source>Checking for a CUDA GPU…</source>
        <translation>正在检测 CUDA GPU…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tabs.py" line="234" />
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tabs.py" line="244" />
        <source>Roofline</source>
        <translation>Roofline 模型</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tabs.py" line="253" />
        <source>Hardware</source>
        <translation>硬件</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tabs.py" line="261" />
        <source>Tiling animation</source>
        <translation>分块动画</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tabs.py" line="266" />
        <source>Tiling</source>
        <translation>分块</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tabs.py" line="272" />
        <source>Compare sessions</source>
        <translation>比较会话</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tabs.py" line="275" />
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tabs.py" line="288" />
        <source>Exercise</source>
        <translation>练习</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/tabs.py" line="281" />
        <source>Accesses</source>
        <translation>访存</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/files.py" line="77" />
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/files.py" line="79" />
        <source>Open &amp;recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/files.py" line="81" />
        <source>&amp;Open session…</source>
        <translation>打开会话(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/files.py" line="86" />
        <source>&amp;Save session…</source>
        <translation>保存会话(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/files.py" line="91" />
        <source>Export results as &amp;CSV…</source>
        <translation>导出结果为 CSV(&amp;C)…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/files.py" line="97" />
        <source>Open recorded or published session</source>
        <translation>打开录制或公开的会话</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/files.py" line="102" />
        <source>&amp;Export chart…</source>
        <translation>导出图表(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/files.py" line="107" />
        <source>Export &amp;animation…</source>
        <translation>导出动画(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/files.py" line="114" />
        <source>Close loaded sessions</source>
        <translation>关闭已载入的会话</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/files.py" line="117" />
        <source>Clear live results</source>
        <translation>清除实时结果</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/files.py" line="121" />
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/files.py" line="137" />
        <source>{0} of {1} files could not be opened</source>
        <translation>{1} 个文件中有 {0} 个无法打开</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/main.py" line="252" />
        <location filename="../../gemmviz/ui/window/main.py" line="253" />
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/main.py" line="254" />
        <source>&amp;Sweep</source>
        <translation>扫描(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/main.py" line="255" />
        <source>&amp;Cancel</source>
        <translation>取消(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/main.py" line="259" />
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/main.py" line="261" />
        <source>&amp;Projector mode (large fonts, thick lines)</source>
        <translation>投影模式（大字号、粗线条）(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/main.py" line="263" />
        <source>&amp;Control panel</source>
        <translation>控制面板(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/main.py" line="265" />
        <source>&amp;Dark theme</source>
        <translation>深色主题(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/main.py" line="266" />
        <source>&amp;Full screen</source>
        <translation>全屏(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/main.py" line="272" />
        <source>Play / pause animation	Space</source>
        <translation>播放 / 暂停动画	Space</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/main.py" line="273" />
        <source>Step back	←</source>
        <translation>后退一步	←</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/main.py" line="274" />
        <source>Step forward	→</source>
        <translation>前进一步	→</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/run.py" line="82" />
        <source>This run has {jobs} jobs, but the live results can take only {room} more: a session holds at most {limit} results. Save the live results and clear them (File &gt; Clear live results), or run fewer jobs.</source>
        <translation>这次运行有 {jobs} 个任务，但实时结果只能再容纳 {room} 个：一个会话最多保存 {limit} 个结果。请保存并清除实时结果（文件 &gt; 清除实时结果），或者少运行一些任务。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/run.py" line="89" />
        <source>Too many results</source>
        <translation>结果太多</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/run.py" line="98" />
        <source>Running {0} job(s)…</source>
        <translation>正在运行 {0} 个任务…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/run.py" line="112" />
        <source>Cancelling at the next launch boundary…</source>
        <translation>将在下一次核函数发射之间取消…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/run.py" line="118" />
        <source>Wait for the run to finish before measuring ceilings</source>
        <translation>请等运行结束后再测量屋顶</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/run.py" line="122" />
        <source>Measuring this GPU's bandwidth and GEMM rates…</source>
        <translation>正在测量这块 GPU 的带宽和 GEMM 速度…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/run.py" line="143" />
        <source>Run stopped</source>
        <translation>运行已停止</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/run.py" line="144" />
        <source>The live results passed the {limit} a session may hold: the run stops here, every result kept. Save them, then clear them to run more.</source>
        <translation>实时结果已超过一个会话能保存的 {limit} 个：运行到此停止，所有结果都保留。请先保存，再清除它们以便继续运行。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/run.py" line="161" />
        <source>Cancelled: {0} of {1} result(s) valid</source>
        <translation>已取消：{1} 个结果中 {0} 个有效</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/run.py" line="163" />
        <source>Done: {0} of {1} result(s) valid</source>
        <translation>完成：{1} 个结果中 {0} 个有效</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/run.py" line="170" />
        <source>A run failed</source>
        <translation>有任务运行失败</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/run.py" line="171" />
        <source>{0} job(s) failed; first: {1} at {2}.</source>
        <translation>{0} 个任务失败；第一个：{1}，规模 {2}。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/run.py" line="180" />
        <source>Cannot measure the ceilings</source>
        <translation>无法测量屋顶</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/run.py" line="183" />
        <source>Ceilings of {0}: {1} GB/s, FP32 GEMM {2} GFLOP/s</source>
        <translation>{0} 的屋顶：{1} GB/s，FP32 GEMM {2} GFLOP/s</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/files.py" line="163" />
        <source>Cannot open the check</source>
        <translation>无法打开检查</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window/files.py" line="164" />
        <source>{0}: not enough memory to open it</source>
        <translation>{0}：内存不足，无法打开</translation>
    </message>
</context>
<context>
    <name>RunPanel</name>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="180" />
        <source>Matrix size</source>
        <translation>矩阵规模</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="187" />
        <source>Custom M×N×K</source>
        <translation>自定义 M×N×K</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="189" />
        <source>size</source>
        <translation>规模</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="293" />
        <source>{0}: a whole number ≥ 1</source>
        <translation>{0}：≥ 1 的整数</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="198" />
        <source>Sizes for Sweep: comma-separated N or MxNxK</source>
        <translation>扫描的规模：用逗号分隔的 N 或 MxNxK</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="199" />
        <source>sweep sizes</source>
        <translation>扫描规模</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="205" />
        <source>Kernel variants</source>
        <translation>核函数版本</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="233" />
        <source>{key} of {users}</source>
        <translation>{users} 的 {key}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="250" />
        <source>Timing</source>
        <translation>计时</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="261" />
        <source>flush L2 before each sample (cold)</source>
        <translation>每次采样前清空 L2（冷缓存）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="262" />
        <source>allow slow CPU loop runs</source>
        <translation>允许很慢的 CPU 循环运行</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="259" />
        <source>repeats</source>
        <translation>重复次数</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="260" />
        <source>warm-up</source>
        <translation>预热次数</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="282" />
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="283" />
        <source>Run the selected variants at this size (Ctrl+R)</source>
        <translation>按这个规模运行选中的版本（Ctrl+R）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="284" />
        <source>Sweep</source>
        <translation>扫描</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="285" />
        <source>Run sweep sizes × variants × parameters</source>
        <translation>运行 扫描规模 × 版本 × 参数</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="286" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="368" />
        <source>give at least one size, e.g. 256,512,1024</source>
        <translation>至少给出一个规模，例如 256,512,1024</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="378" />
        <source>choose at least one available kernel variant</source>
        <translation>请至少选择一个可用的核函数版本</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="383" />
        <source>choose at least one {key} size for {name}</source>
        <translation>请为 {name} 至少选择一个 {key} 大小</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="409" />
        <source>Sweep: {0}</source>
        <translation>扫描：{0}</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run/panel.py" line="435" />
        <source>Unavailable: {0}</source>
        <translation>不可用：{0}</translation>
    </message>
</context>
<context>
    <name>SessionFiles</name>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="207" />
        <source>Recorded on {0} — replay</source>
        <translation>录制于 {0} — 回放</translation>
    </message>
</context>
</TS>