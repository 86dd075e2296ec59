# Lab guide §8.5: iptables mode: follow a ClusterIP through KUBE-SERVICES, KUBE-SVC-* and the KUBE-SEP-* DNAT rules.
$ kubectl create namespace services
$ kubectl config set-context --current --namespace services
$ kubectl create deployment web --image=nginx --replicas=3
$ kubectl expose deployment web --port=80
$ sleep 30
$ iptables-save > iptables.list
$ IP=$(kubectl get svc web -o jsonpath='{.spec.clusterIP}')
$ grep $IP iptables.list
$ grep KUBE-SVC-7D76YWGERGEPC4GC iptables.list
# The guide types the three KUBE-SEP chains it saw.
$ SEP=$(grep -- "-A KUBE-SVC-7D76YWGERGEPC4GC" iptables.list | grep -o 'KUBE-SEP-[A-Z0-9]*' | tr '\n' ' ')
$ set -- $SEP; grep -e $1 -e $2 -e $3 iptables.list | grep DNAT
$ grep -c -- "--probability" iptables.list
