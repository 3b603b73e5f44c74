<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="zh_CN">
<context>
    <name />
    <message>
        <location filename="../../gemmviz/ui/i18n.py" line="67" />
        <source>No CUDA GPU: {reason}. CPU variants run live; GPU figures come from recorded sessions (File ▸ Open recorded or published session).</source>
        <translation>没有 CUDA GPU：{reason}。CPU 版本照常实时运行；GPU 的数据来自录制的会话（文件 ▸ 打开录制或公开的会话）。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/i18n.py" line="73" />
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/i18n.py" line="76" />
        <source>As the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/i18n.py" line="87" />
        <source>The language changes when gemmviz starts again</source>
        <translation>重新启动 gemmviz 后切换语言</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="33" />
        <source>gemmviz {version}: see why tiled matrix multiplication is fast.</source>
        <translation>gemmviz {version}：看看分块矩阵乘法为什么快。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="34" />
        <source>Licence: {licence} (see the LICENSE file). Qt {qt}, pyqtgraph {pg}.</source>
        <translation>许可证：{licence}（见 LICENSE 文件）。Qt {qt}，pyqtgraph {pg}。</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="38" />
        <source>Where the numbers come from:</source>
        <translation>数据来源：</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="39" />
        <source>• live results: measured on this computer when you press Run, verified against a float64 reference</source>
        <translation>• 实时结果：按下“运行”时在这台电脑上测得，并与 float64 参考结果核对</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="44" />
        <source>• {file}: measured by gemmviz on {where}</source>
        <translation>• {file}：由 gemmviz 在 {where} 上测得</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="47" />
        <source>• {file}: the table {seed} published ({where}), not measured by gemmviz</source>
        <translation>• {file}：{seed}发表的表格（{where}），不是 gemmviz 测得的</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="48" />
        <source>a seed</source>
        <translation>一篇原文</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="52" />
        <source>• {file}: roofline ceilings measured on {where}</source>
        <translation>• {file}：在 {where} 上测得的 Roofline 屋顶</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="53" />
        <source>The seeds: the two blog posts whose kernels and arithmetic gemmviz implements and checks:</source>
        <translation>原文：gemmviz 实现并核对其核函数与计算的两篇博客：</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="60" />
        <source>About gemmviz</source>
        <translation>关于 gemmviz</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="81" />
        <source>&amp;About gemmviz</source>
        <translation>关于 gemmviz(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/about.py" line="84" />
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
</context>
<context>
    <name>Lesson</name>
    <message>
        <location filename="../../gemmviz/ui/lesson.py" line="278" />
        <source>&amp;Lesson</source>
        <translation>课程(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson.py" line="285" />
        <source>{0} steps</source>
        <translation>{0} 步</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/lesson.py" line="288" />
        <source>Open lesson file…</source>
        <translation>打开课程文件…</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="91" />
        <source>Checking for a CUDA GPU…</source>
        <translation>正在检测 CUDA GPU…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="101" />
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="101" />
        <source>Roofline</source>
        <translation>Roofline</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="101" />
        <source>Hardware</source>
        <translation>硬件</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="102" />
        <source>Tiling animation</source>
        <translation>分块动画</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="102" />
        <source>Compare sessions</source>
        <translation>比较会话</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="137" />
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="138" />
        <source>Open &amp;recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="139" />
        <source>&amp;Open session…</source>
        <translation>打开会话(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="140" />
        <source>&amp;Save session…</source>
        <translation>保存会话(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="141" />
        <source>Export results as &amp;CSV…</source>
        <translation>导出结果为 CSV(&amp;C)…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="143" />
        <source>Open recorded or published session</source>
        <translation>打开录制或公开的会话</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="146" />
        <source>&amp;Export chart…</source>
        <translation>导出图表(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="147" />
        <source>Export &amp;animation…</source>
        <translation>导出动画(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="151" />
        <source>Close loaded sessions</source>
        <translation>关闭已载入的会话</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="152" />
        <source>Clear live results</source>
        <translation>清除实时结果</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="154" />
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="155" />
        <location filename="../../gemmviz/ui/window.py" line="156" />
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="157" />
        <source>&amp;Sweep</source>
        <translation>扫描(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="158" />
        <source>&amp;Cancel</source>
        <translation>取消(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="161" />
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="162" />
        <source>&amp;Projector mode (large fonts, thick lines)</source>
        <translation>投影模式（大字号、粗线条）(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="163" />
        <source>&amp;Control panel</source>
        <translation>控制面板(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="165" />
        <source>&amp;Dark theme</source>
        <translation>深色主题(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="166" />
        <source>&amp;Full screen</source>
        <translation>全屏(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="172" />
        <source>Play / pause animation	Space</source>
        <translation>播放 / 暂停动画	Space</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="173" />
        <source>Step back	←</source>
        <translation>后退一步	←</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/window.py" line="174" />
        <source>Step forward	→</source>
        <translation>前进一步	→</translation>
    </message>
</context>
<context>
    <name>RunPanel</name>
    <message>
        <location filename="../../gemmviz/ui/run_panel.py" line="56" />
        <source>Matrix size</source>
        <translation>矩阵规模</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run_panel.py" line="61" />
        <source>size</source>
        <translation>规模</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run_panel.py" line="70" />
        <source>Sizes for Sweep: comma-separated N or MxNxK</source>
        <translation>扫描的规模：用逗号分隔的 N 或 MxNxK</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run_panel.py" line="71" />
        <source>sweep sizes</source>
        <translation>扫描规模</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run_panel.py" line="74" />
        <source>Kernel variants</source>
        <translation>核函数版本</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run_panel.py" line="107" />
        <source>Timing</source>
        <translation>计时</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run_panel.py" line="115" />
        <source>flush L2 before each sample (cold)</source>
        <translation>每次采样前清空 L2（冷缓存）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run_panel.py" line="116" />
        <source>allow slow CPU loop runs</source>
        <translation>允许很慢的 CPU 循环运行</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run_panel.py" line="117" />
        <source>repeats</source>
        <translation>重复次数</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run_panel.py" line="118" />
        <source>warm-up</source>
        <translation>预热次数</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run_panel.py" line="129" />
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run_panel.py" line="130" />
        <source>Run the selected variants at this size (Ctrl+R)</source>
        <translation>按这个规模运行选中的版本（Ctrl+R）</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run_panel.py" line="131" />
        <source>Sweep</source>
        <translation>扫描</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run_panel.py" line="132" />
        <source>Run sweep sizes × variants × parameters</source>
        <translation>运行 扫描规模 × 版本 × 参数</translation>
    </message>
    <message>
        <location filename="../../gemmviz/ui/run_panel.py" line="133" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>SessionFiles</name>
    <message>
        <location filename="../../gemmviz/ui/files.py" line="56" />
        <source>Recorded on {0} — replay</source>
        <translation>录制于 {0} — 回放</translation>
    </message>
</context>
</TS>